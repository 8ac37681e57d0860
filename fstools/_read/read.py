"""Read: a file for an agent, as numbered text lines, an image, PDF page text or notebook cells.

What a file is comes from its bytes (images, PDFs, binaries) and, for notebooks, its
name. Every successful read records what read-before-write needs in the context, and so
does a read refused for the file's kind or size (binary, too large, damaged): the agent
cannot read such a file any other way, and must still be able to replace it. The
image, PDF and notebook readers are imported on first use: `import fstools` stays light.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from .._content.encodings import SNIFF_BYTES, looks_binary
from .._content.fingerprints import DIGEST_LIMIT, content_hasher, remember, remember_digest
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError, changed_or_failed
from .._core.hardlinks import note_hard_links
from .._core.hints import param, setting
from .._core.outputs import FILE_PATH, WARNINGS, ResultField
from .._core.params import ToolParameter
from .._core.paths import SafePath, resolve_path
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import Image, ToolResult
from .._syntax.outline import Symbol, find_symbol
from .kinds import image_mime, is_pdf
from .window import MAX_LINE_CHARS, MAX_READ_CHARS, NOTICE_ROOM, TextWindow, file_chunks, read_window

DEFAULT_LIMIT = 2000
MAX_LIMIT = 10000
# Page images are large (a page is a ~1000x1300 px PNG): a few a call, the rest on request.
PDF_MAX_PAGE_IMAGES = 5
MAX_CANDIDATES = 50  # definitions an ambiguous symbol lists
ALTERNATIVES_NOTE_ROOM = 2000  # of MAX_READ_CHARS, kept for the note after a name's several definitions
MAX_SYMBOL_LISTING = 10_000  # characters of outline a symbol not found shows
PAGE_IMAGE_MODES = ("auto", "all", "none")


@tool(
    name="Read",
    description=(
        "Reads a local file. Text comes numbered like `cat -n` (line number, tab, line), "
        "up to 2000 lines from offset 1; page with offset and limit (a final [Showing lines ...] notice says "
        f"where to continue). A page holds at most {MAX_READ_CHARS:,} characters: without limit, long lines "
        "end it sooner (the notice says so); a limit that would pass it is refused with one that fits. Lines "
        f"over {MAX_LINE_CHARS} characters are cut, ending '...'. Images (png, jpeg, gif, webp, bmp) come as "
        "image content, downscaled when large; PDFs as text with '--- Page N ---' markers (at most 20 pages a "
        "call) plus images of scanned pages; Jupyter notebooks as cells with outputs, each headed "
        "'--- Cell NAME (type) ---', NAME the cell_id NotebookEdit takes "
        "(the id, or cell-N from 0), offset and limit counting cells. Binary files are refused. "
        'symbol="Parser.feed" (or "feed") reads one definition whole, numbered the same way.'
    ),
    parameters=(
        ToolParameter("file_path", "string", "Absolute path of the file to read", required=True, path=True),
        ToolParameter(
            "offset",
            "integer",
            "First line (1-indexed; negative from the end: -50 reads the last 50 lines); in a notebook, first cell",
            default=1,
        ),
        ToolParameter(
            "limit", "integer", "Maximum number of lines to read", default=DEFAULT_LIMIT, minimum=1, maximum=MAX_LIMIT
        ),
        ToolParameter("pages", "string", 'PDF only: pages to read, e.g. "1-5,8" or "10-" (default: all, capped)'),
        ToolParameter(
            "page_images",
            "string",
            "PDF only: pages also sent as images: auto (no text layer, e.g. scans), all (e.g. to see figures), "
            f"none. At most {PDF_MAX_PAGE_IMAGES} a call",
            default="auto",
            enum=PAGE_IMAGE_MODES,
        ),
        ToolParameter(
            "symbol",
            "string",
            "One definition to read whole (source files; see Outline)",
        ),
    ),
    cli_help=(
        "Print a text file with line numbers (like `cat -n`), a page at a time: --offset is the first line, "
        "--limit the number of lines. A PDF prints as text per page (--pages 1-5,8), a notebook as its cells, "
        "an image as its type and size (--json includes the image data and a PDF's page images)."
    ),
    read_only=True,
    results=(
        FILE_PATH,
        ResultField("total_lines", "integer", "Lines in the file (text)"),
        ResultField("lines_read", "integer", "Lines returned (text)"),
        ResultField("offset", "integer", "First line (text) or cell (notebook) returned"),
        ResultField("limit", "integer", "Line limit of the call (text)"),
        ResultField("next_offset", "integer", "Offset of the next page, when more lines (or cells) remain"),
        ResultField("truncated", "boolean", "More lines or selected pages remain"),
        ResultField("lines_cut", "integer", "Lines cut at the maximum line length (text)"),
        ResultField(
            "partial",
            "boolean",
            f"The page stopped before limit: its lines would pass {MAX_READ_CHARS:,} characters (text)",
        ),
        ResultField("encoding", "string", "Text encoding (text)"),
        ResultField("line_ending", "string", "Line ending: LF, CRLF, CR or mixed (text)"),
        ResultField("size", "integer", "Bytes of the file (text) or of the image sent (image)"),
        ResultField("is_image", "boolean", "The file is an image, returned as image content"),
        ResultField("mime_type", "string", "MIME type of the image sent"),
        ResultField("base64_data", "string", "The image sent, base64-encoded"),
        ResultField("width", "integer", "Width of the image sent, in pixels"),
        ResultField("height", "integer", "Height of the image sent, in pixels"),
        ResultField("resized", "boolean", "The image was downscaled or re-encoded to fit the bounds"),
        ResultField("is_pdf", "boolean", "The file is a PDF, returned as page text"),
        ResultField("page_count", "integer", "Pages in the PDF"),
        ResultField("pages", "string", 'Pages returned, e.g. "1-5,8"'),
        ResultField(
            "page_images",
            "array",
            "PDF pages returned as image content: page, mime_type, width, height (and base64_data, "
            "except in MCP structuredContent, where the images are content blocks)",
        ),
        WARNINGS,
        ResultField("is_notebook", "boolean", "The file is a Jupyter notebook, returned as cells"),
        ResultField("cell_count", "integer", "Cells in the notebook"),
        ResultField(
            "cell_ids", "array", "Each cell shown, by the name NotebookEdit's cell_id takes for it (null: it has none)"
        ),
        ResultField("symbol", "string", "The definition read, by its qualified name (symbol)"),
        ResultField("kind", "string", "Its kind: class, function, method, struct, impl, ... (symbol)"),
        ResultField(
            "definitions",
            "array",
            "When the name has several definitions no name tells apart (one per #if branch): each one's "
            "name, kind, start_line, end_line, parent, in file order, at most 50 (symbol)",
        ),
    ),
)
@note_hard_links
def read(
    file_path: str,
    *,
    offset: int = 1,
    limit: int = DEFAULT_LIMIT,
    pages: str | None = None,
    page_images: str = "auto",
    symbol: str | None = None,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """Read a file: text as numbered lines, or an image, a PDF's text or a notebook's cells."""
    ctx = session(ctx)
    symbol = symbol if symbol and symbol.strip() else None  # models send "" for "no value"
    if symbol is not None and (offset != 1 or pages):
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"{param(ctx, 'symbol')} reads one definition whole: it takes no {param(ctx, 'offset')} or "
            f"{param(ctx, 'pages')} (use {param(ctx, 'limit')} to cut a long one)",
        )
    if offset == 0:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            "Invalid argument 'offset': lines are numbered from 1; a negative offset counts from the end "
            "(-50: the last 50 lines)",
        )
    target = readable(ctx, file_path)
    authorize(ctx, read.spec, target.path)
    # A limit the caller chose is a range it asked for: over the bound it is refused, not cut.
    chosen_limit = limit != DEFAULT_LIMIT
    # The agent reads before it changes: the check after its change finds the file already parsed.
    keep_tree = ctx.check_syntax != "off"
    return read_target(
        ctx, target, offset, limit, pages, page_images, symbol, chosen_limit=chosen_limit, keep_tree=keep_tree
    )


def readable(ctx: ExecutionContext, file_path: str) -> SafePath:
    """The path checked for Read: inside the roots, not a secret, an existing file (ToolError if not)."""
    target = resolve_path(ctx, file_path)
    if not target.exists:
        raise ToolError(ErrorCode.FILE_NOT_FOUND, f"File not found: {target.display}")
    if target.is_dir:
        raise ToolError(ErrorCode.IS_DIRECTORY, f"Cannot read directory: {target.display}")
    return target


def read_target(
    ctx: ExecutionContext,
    target: SafePath,
    offset: int = 1,
    limit: int = DEFAULT_LIMIT,
    pages: str | None = None,
    page_images: str = "auto",
    symbol: str | None = None,
    *,
    chosen_limit: bool = False,
    keep_tree: bool = False,
) -> ToolResult:
    """What Read answers for `target`, a path `readable` checked and the caller authorized
    (ReadMany reads each of its files so). `chosen_limit`: lines that would pass MAX_READ_CHARS
    are refused (`invalid_argument`, with the limit that fits) rather than cut to a partial view.
    `keep_tree`: a text file's syntax tree is parsed in the background for the check of a change
    that may follow."""
    fd = _open(target)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(ErrorCode.IS_DIRECTORY, f"Cannot read directory: {target.display}")
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(ErrorCode.INVALID_PATH, f"Not a regular file: {target.display}")
        if symbol is not None:
            return _read_symbol(ctx, target, fd, st, symbol, limit, chosen_limit)
        return _dispatch(ctx, target, fd, st, offset, limit, pages, page_images, chosen_limit, keep_tree)
    finally:
        os.close(fd)


def _open(target: SafePath) -> int:
    """The file, opened beneath its root through no symlink: a path swapped since the check fails."""
    # O_NONBLOCK: if the path was swapped for a FIFO since it was checked, opening must not hang.
    try:
        return target.open(os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise changed_or_failed(exc, target.display) from None


def _dispatch(
    ctx: ExecutionContext,
    target: SafePath,
    fd: int,
    st: os.stat_result,
    offset: int,
    limit: int,
    pages: str | None,
    page_images: str,
    chosen_limit: bool,
    keep_tree: bool = False,
) -> ToolResult:
    head = os.pread(fd, SNIFF_BYTES, 0)
    pages = pages if pages and pages.strip() else None  # models send "" for "no value"
    if pages is not None and not is_pdf(head):
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"{param(ctx, 'pages')} applies to PDF files only; "
            f"use {param(ctx, 'offset')} and {param(ctx, 'limit')} for {target.display}",
        )
    mime = image_mime(head)
    if mime is not None:
        return _read_image(ctx, target, fd, st, mime)
    if is_pdf(head):
        return _read_pdf(ctx, target, fd, st, pages, page_images)
    notebook_error = None
    if target.path.lower().endswith(".ipynb"):
        from .notebook import NotebookError

        try:
            return _read_notebook(ctx, target, fd, st, offset, limit)
        except NotebookError as exc:
            notebook_error = str(exc)  # show the raw text instead, and say why
    if looks_binary(head):
        error = ToolError(ErrorCode.BINARY_FILE, f"Cannot read binary file: {target.display}")
        raise _refused(ctx, target, fd, st, error)
    result = _read_text(ctx, target, fd, st, head, offset, limit, chosen_limit)
    if keep_tree and notebook_error is None:
        _keep_tree(target, fd, st)
    if notebook_error is not None:
        result.metadata["notebook_error"] = notebook_error
    return result


def _keep_tree(target: SafePath, fd: int, st: os.stat_result) -> None:
    from .._syntax.check import MAX_CHECK_BYTES, prime_after_read

    if st.st_size <= MAX_CHECK_BYTES:
        prime_after_read(target.display, os.pread(fd, st.st_size, 0))


def _read_text(
    ctx: ExecutionContext,
    target: SafePath,
    fd: int,
    st: os.stat_result,
    head: bytes,
    offset: int,
    limit: int,
    chosen_limit: bool = False,
    max_chars: int = MAX_READ_CHARS,
) -> ToolResult:
    whole = read_window(target.path, fd, st, head, offset, limit)
    if whole.past_end:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"offset {offset} is past the end of {target.display}: it has {whole.total_lines} line(s)",
            total_lines=whole.total_lines,
        )
    window = whole.fitted(max_chars)
    if window.partial and chosen_limit:
        raise _over_bound(ctx, target, whole, len(window.lines))
    remember_digest(ctx, target.path, st, window.digest)
    metadata = {
        "file_path": target.display,
        "lines_read": len(window.lines),
        "offset": window.first_line,
        "limit": limit,
        "total_lines": window.total_lines,
        "truncated": window.truncated,
        "lines_cut": window.lines_cut,
        "encoding": window.encoding.label,
        "line_ending": window.line_ending,
        "size": st.st_size,
    }
    if window.truncated:
        metadata["next_offset"] = window.last_line + 1
    if window.partial:
        metadata["partial"] = True
    return ToolResult.ok(window.render(ctx), **metadata)


def _over_bound(ctx: ExecutionContext, target: SafePath, whole: TextWindow, fits: int) -> ToolError:
    """A chosen range whose lines pass MAX_READ_CHARS: refused, with the limit that fits from its offset.

    A short refusal costs a model less than a cut page it did not ask for (which it often
    re-reads anyway); a page left at the default limit is cut instead (a partial view)."""
    chars = sum(len(line) for line in whole.lines) + 8 * len(whole.lines)
    return ToolError(
        ErrorCode.INVALID_ARGUMENT,
        f"Lines {whole.first_line}-{whole.last_line} of {target.display} are about {chars:,} characters, over "
        f"Read's {MAX_READ_CHARS:,} a call. Use {setting(ctx, 'limit', fits)} (the most lines from "
        f"{whole.first_line} that fit), or leave {param(ctx, 'limit')} out for a partial view that says where to "
        "continue",
        total_lines=whole.total_lines,
        max_limit=fits,
    )


def _read_symbol(
    ctx: ExecutionContext,
    target: SafePath,
    fd: int,
    st: os.stat_result,
    symbol: str,
    limit: int,
    chosen_limit: bool = False,
) -> ToolResult:
    """The lines of one definition, numbered as Read numbers them (cut at `limit` with Read's notice)."""
    from .._syntax.sources import MAX_SOURCE_BYTES
    from .outline import bounded_lines, outline_file

    if st.st_size > MAX_SOURCE_BYTES:
        raise ToolError(
            ErrorCode.FILE_TOO_LARGE,
            f"File too large to find definitions in: {target.display} is {st.st_size} bytes; read it by "
            f"{param(ctx, 'offset')} and {param(ctx, 'limit')}",
        )
    data = os.pread(fd, st.st_size, 0)
    found = outline_file(target, data, timeout=ctx.timeout)
    matches = find_symbol(found.symbols, symbol)
    if not matches:
        outline, shown = bounded_lines(found.symbols, MAX_SYMBOL_LISTING)
        more = len(found.symbols) - shown
        outline += f"\n... and {more:,} more definitions (Outline lists them)" if more else ""
        raise ToolError(
            ErrorCode.NOT_FOUND,
            f"No definition named {symbol!r} in {target.display}. Its outline:\n{outline or '(no definitions)'}",
            symbols=[s.as_dict() for s in found.symbols[:shown]],
            count=len(found.symbols),
        )
    if len(matches) > 1 and len({s.qualified for s in matches}) == 1:
        return _read_alternatives(ctx, target, fd, st, data, matches, limit)
    if len(matches) > 1:
        listed = "\n".join(f"{s.line()}   ({s.qualified})" for s in matches[:MAX_CANDIDATES])
        more = len(matches) - MAX_CANDIDATES
        listed += f"\n... and {more:,} more" if more > 0 else ""
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"{symbol!r} names {len(matches):,} definitions in {target.display}:\n{listed}\n"
            f"Give a qualified name, or read one by {param(ctx, 'offset')} and {param(ctx, 'limit')}",
            candidates=[s.as_dict() for s in matches[:MAX_CANDIDATES]],
            count=len(matches),
        )
    chosen = matches[0]
    count = chosen.end_line - chosen.start_line + 1
    result = _read_text(ctx, target, fd, st, data[:SNIFF_BYTES], chosen.start_line, min(count, limit), chosen_limit)
    whole = count <= limit and not result.metadata.get("partial")  # a partial view keeps the notice
    if whole:  # the whole definition: its lines only, not Read's "more lines remain" notice
        result.output = "\n".join(result.output.split("\n")[: result.metadata["lines_read"]])
        result.metadata.pop("next_offset", None)
    result.metadata.update(symbol=chosen.qualified, kind=chosen.kind, truncated=not whole)
    return result


def _read_alternatives(
    ctx: ExecutionContext,
    target: SafePath,
    fd: int,
    st: os.stat_result,
    data: bytes,
    matches: list[Symbol],
    limit: int,
) -> ToolResult:
    """The definitions of one qualified name that no name tells apart (a C macro or function per `#if`
    branch, a redefinition, `typing.overload`): each in file order, numbered as Read numbers it, `--`
    between two. At most `limit` lines and MAX_CANDIDATES definitions: the one cut carries Read's
    notice, the rest are counted."""
    pieces: list[str] = []
    left = limit
    chars = MAX_READ_CHARS - ALTERNATIVES_NOTE_ROOM  # the page's bound holds for all the pieces together
    cut: ToolResult | None = None
    head = data[:SNIFF_BYTES]
    for symbol in matches[:MAX_CANDIDATES]:
        if left <= 0 or chars < NOTICE_ROOM + MAX_LINE_CHARS + 16:  # the room for one line and its notice
            break
        count = symbol.end_line - symbol.start_line + 1
        piece = _read_text(ctx, target, fd, st, head, symbol.start_line, min(count, left), max_chars=chars)
        whole = count <= left and not piece.metadata.get("partial")
        pieces.append("\n".join(piece.output.split("\n")[: piece.metadata["lines_read"]]) if whole else piece.output)
        left -= piece.metadata["lines_read"]
        chars -= len(pieces[-1]) + len("\n--\n")
        if not whole:
            cut = piece
            break
    rest = matches[len(pieces) :]
    if left <= 0 and (cut or rest):
        why = f"cut at {setting(ctx, 'limit', limit)}"
    elif cut or len(pieces) < min(len(matches), MAX_CANDIDATES):
        why = f"a page stops at {MAX_READ_CHARS:,} characters"
    else:
        why = ""
    return ToolResult.ok(
        "\n--\n".join(pieces) + "\n" + _alternatives_note(matches, rest, why),
        file_path=target.display,
        symbol=matches[0].qualified,
        kind=", ".join(sorted({s.kind for s in matches})),
        definitions=[s.as_dict() for s in matches[:MAX_CANDIDATES]],
        lines_read=limit - left,
        truncated=cut is not None or bool(rest),
        **({"next_offset": cut.metadata["next_offset"]} if cut and "next_offset" in cut.metadata else {}),
    )


def _alternatives_note(matches: list[Symbol], rest: list[Symbol], why: str) -> str:
    """The last line of `_read_alternatives`: every definition's lines (the first MAX_CANDIDATES), why the
    definitions shown stop where they do (`why`: the limit, the page's characters), what was left."""
    where = ", ".join(f"{s.start_line}-{s.end_line}" for s in matches[:MAX_CANDIDATES])
    more = len(matches) - MAX_CANDIDATES
    where += f" and {more:,} more" if more > 0 else ""
    note = f"[{matches[0].qualified} has {len(matches):,} definitions here (lines {where}), shown in file order"
    note += f"; {why}" if why else ""
    if len(rest) == 1:
        note += f"; not shown: the one at line {rest[0].start_line}"
    elif rest:
        note += f"; not shown: {len(rest):,}, from line {rest[0].start_line}"
    return note + "]"


def _hash_fd(fd: int, size: int) -> bytes:
    """The content digest of the first `size` bytes of `fd`, read in bounded pieces."""
    hasher = content_hasher()
    for buf, n in file_chunks(fd, size):
        hasher.update(memoryview(buf)[:n])
    return hasher.digest()


def _refused(
    ctx: ExecutionContext, target: SafePath, fd: int, st: os.stat_result, error: ToolError, data: bytes | None = None
) -> ToolError:
    """`error`, after recording the file as read: Read refuses it for its kind or size, so this
    is all the agent can see of it, and Write must still be able to replace it (`data`: the
    whole content, when already in memory)."""
    if data is not None:
        remember(ctx, target.path, st, data)
    else:
        remember_digest(ctx, target.path, st, _hash_fd(fd, st.st_size) if st.st_size <= DIGEST_LIMIT else None)
    return error


def _media_bytes(ctx: ExecutionContext, target: SafePath, fd: int, st: os.stat_result) -> bytes:
    """The whole file, for the formats that are parsed whole; refused over ctx.max_media_bytes."""
    if st.st_size > ctx.max_media_bytes:
        raise _refused(
            ctx,
            target,
            fd,
            st,
            ToolError(
                ErrorCode.FILE_TOO_LARGE,
                f"File too large: {target.display} is {st.st_size} bytes; images, PDFs and notebooks are read "
                f"up to {ctx.max_media_bytes} bytes",
            ),
        )
    return os.pread(fd, st.st_size, 0)


def _read_image(ctx: ExecutionContext, target: SafePath, fd: int, st: os.stat_result, mime: str) -> ToolResult:
    from .image import ImageError, ImageTooLarge, load_image

    data = _media_bytes(ctx, target, fd, st)
    try:
        image = load_image(data, mime, ctx.image_max_dimension, ctx.image_max_bytes)
    except ImageTooLarge as exc:
        error = ToolError(ErrorCode.FILE_TOO_LARGE, f"Image too large to decode: {target.display} ({exc})")
        raise _refused(ctx, target, fd, st, error, data) from None
    except ImageError as exc:
        error = ToolError(
            ErrorCode.ENCODING_ERROR, f"Cannot read image: {target.display} looks like {mime} but is damaged ({exc})"
        )
        raise _refused(ctx, target, fd, st, error, data) from None
    remember(ctx, target.path, st, data)
    summary = f"Image {target.display}: {image.mime_type}, {image.width}x{image.height} px, {len(image.data)} bytes"
    if image.resized or image.mime_type != mime:
        summary += (
            f" (from {image.original_mime_type}, {image.original_width}x{image.original_height} px, "
            f"{image.original_size} bytes; bounds {ctx.image_max_dimension} px a side, {ctx.image_max_bytes} bytes)"
        )
    picture = Image.from_bytes(image.data, image.mime_type, image.width, image.height)
    return ToolResult(
        True,
        summary,
        images=[picture],
        metadata=dict(
            file_path=target.display,
            is_image=True,
            mime_type=image.mime_type,
            base64_data=picture.data,
            width=image.width,
            height=image.height,
            size=len(image.data),
            resized=image.resized,
            original_mime_type=image.original_mime_type,
            original_width=image.original_width,
            original_height=image.original_height,
            original_size=image.original_size,
        ),
    )


def _read_pdf(
    ctx: ExecutionContext, target: SafePath, fd: int, st: os.stat_result, pages: str | None, page_images: str
) -> ToolResult:
    from .pdf import PageSpecError, PdfError, format_pages, read_pdf

    data = _media_bytes(ctx, target, fd, st)
    try:
        pdf = read_pdf(data, pages, ctx.pdf_max_pages, MAX_READ_CHARS - NOTICE_ROOM)
    except PdfError as exc:
        error = ToolError(ErrorCode.ENCODING_ERROR, f"Cannot read PDF: {target.display} ({exc})")
        raise _refused(ctx, target, fd, st, error, data) from None
    except PageSpecError as exc:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, str(exc)) from None
    remember(ctx, target.path, st, data)
    wanted = {"auto": pdf.textless, "all": pdf.shown}.get(page_images, [])
    images = _page_images(ctx, data, wanted, page_images) if wanted else _PageImagesPart([], [], [], [])
    output = "\n\n".join([pdf.text, *images.lines])
    if pdf.remaining:
        why = f"a page of output stops at {MAX_READ_CHARS:,} characters" if pdf.partial else None
        output += (
            f"\n\n[Showing {len(pdf.shown)} of {len(pdf.shown) + len(pdf.remaining)} selected pages "
            f"({why or f'at most {ctx.pdf_max_pages} a call'}). "
            f"Use {setting(ctx, 'pages', format_pages(pdf.remaining[: ctx.pdf_max_pages]))} to read the next ones.]"
        )
    metadata: dict[str, object] = {"page_images": images.images} if images.images else {}
    if images.warnings:
        metadata["warnings"] = images.warnings
    return ToolResult(
        True,
        output,
        images=images.pictures,
        metadata=dict(
            file_path=target.display,
            is_pdf=True,
            page_count=pdf.page_count,
            pages=format_pages(pdf.shown),
            pages_read=len(pdf.shown),
            truncated=bool(pdf.remaining),
            **({"partial": True} if pdf.partial else {}),
            **metadata,
        ),
    )


@dataclass(frozen=True)
class _PageImagesPart:
    images: list[dict[str, object]]  # metadata["page_images"]
    lines: list[str]  # what the text says about them
    warnings: list[str]
    pictures: list[Image]  # the result's images, the same data as `images`


def _page_images(ctx: ExecutionContext, data: bytes, wanted: list[int], mode: str) -> _PageImagesPart:
    """The first PDF_MAX_PAGE_IMAGES of the `wanted` pages as PNGs, or why they are missing."""
    from .pdf import format_pages
    from .pdfpages import PageImagesUnavailable, render_pages

    try:
        rendered = render_pages(data, wanted[:PDF_MAX_PAGE_IMAGES], ctx.image_max_dimension, ctx.image_max_bytes)
    except PageImagesUnavailable as exc:
        return _PageImagesPart([], [], [f"{exc} (to see page(s) {format_pages(wanted)})"], [])
    pictures = [Image.from_bytes(i.data, i.mime_type, i.width, i.height) for i in rendered.images]
    images: list[dict[str, object]] = [
        {
            "page": image.page,
            "base64_data": picture.data,
            "mime_type": image.mime_type,
            "width": image.width,
            "height": image.height,
        }
        for image, picture in zip(rendered.images, pictures, strict=True)
    ]
    lines = []
    if rendered.images:
        lines.append(f"[Images of page(s) {format_pages([i.page for i in rendered.images])} follow]")
    left = wanted[PDF_MAX_PAGE_IMAGES:]
    if left:
        again = setting(ctx, "pages", format_pages(left[:PDF_MAX_PAGE_IMAGES]))
        if mode != "auto":
            again += " " + setting(ctx, "page_images", mode)
        lines.append(
            f"[No image of page(s) {format_pages(left)}: at most {PDF_MAX_PAGE_IMAGES} page images a call; "
            f"use {again} to see them]"
        )
    return _PageImagesPart(images, lines, rendered.failures, pictures)


def _read_notebook(
    ctx: ExecutionContext, target: SafePath, fd: int, st: os.stat_result, offset: int, limit: int
) -> ToolResult:
    """The cells from the `offset`-th, at most `limit`, whole cells within MAX_READ_CHARS; a notice
    names the next cell, by position (the next call's offset) and by name."""
    from .notebook import PastLastCell, read_notebook

    data = _media_bytes(ctx, target, fd, st)
    try:
        nb = read_notebook(data, offset, limit, MAX_READ_CHARS - NOTICE_ROOM)
    except PastLastCell as exc:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"offset {offset} is past the last cell of {target.display}: it has {exc.cell_count} cell(s) "
            f"({param(ctx, 'offset')} counts cells from 1 in a notebook)",
            cell_count=exc.cell_count,
        ) from None
    remember(ctx, target.path, st, data)
    text = nb.text
    extra: dict[str, object] = {}
    if nb.next_name is not None:
        why = f", a partial view: a page stops at {MAX_READ_CHARS:,} characters" if nb.partial else ""
        text += (
            f"\n\n[Showing cells {nb.first + 1}-{nb.shown_until} of {nb.cell_count}{why}. "
            f"Use {setting(ctx, 'offset', nb.shown_until + 1)} to read on from cell {nb.next_name}.]"
        )
        extra["next_offset"] = nb.shown_until + 1
    if nb.partial:
        extra["partial"] = True
    return ToolResult.ok(
        text,
        file_path=target.display,
        is_notebook=True,
        cell_count=nb.cell_count,
        cell_ids=nb.cell_ids,
        offset=nb.first + 1,
        truncated=nb.next_name is not None,
        language=nb.language,
        nbformat=nb.nbformat,
        **extra,
    )
