"""Read on real images (pillow), PDFs (written in the test, read back by pypdf) and notebooks (nbformat)."""

from __future__ import annotations

import base64
import io
import json
import random
import struct
import zlib

import pytest
from PIL import Image

import fstools
from fstools._read.pdf import PageSpecError, format_pages, parse_pages
from tests.helpers.samples import make_notebook, make_pdf


def image_bytes(fmt: str, size=(64, 48), mode="RGB", noise=False) -> bytes:
    img = Image.new(mode, size, (10, 120, 200) if mode == "RGB" else 0)
    if noise:
        rng = random.Random(1)
        img = Image.frombytes("RGB", size, bytes(rng.getrandbits(8) for _ in range(size[0] * size[1] * 3)))
    out = io.BytesIO()
    img.save(out, fmt)
    return out.getvalue()


def decoded(result) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(result.metadata["base64_data"])))


# --- images ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt,mime", [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")]
)
def test_images_are_sent_as_they_are(project, ctx, fmt, mime):
    data = image_bytes(fmt)
    f = project / f"pic.{fmt.lower()}"
    f.write_bytes(data)
    r = fstools.read(str(f), ctx=ctx)
    assert r.success and r.metadata["is_image"] is True
    assert r.metadata["mime_type"] == mime and base64.b64decode(r.metadata["base64_data"]) == data
    assert (r.metadata["width"], r.metadata["height"]) == (64, 48) and r.metadata["resized"] is False
    assert r.metadata["original_size"] == len(data) == r.metadata["size"]
    assert r.output == f"Image {f}: {mime}, 64x48 px, {len(data)} bytes"
    assert ctx.read_record(str(f)) is not None


def test_bmp_is_converted_to_png(project, ctx):
    f = project / "pic.bmp"
    f.write_bytes(image_bytes("BMP"))
    r = fstools.read(str(f), ctx=ctx)
    assert r.metadata["mime_type"] == "image/png" and r.metadata["original_mime_type"] == "image/bmp"
    assert r.metadata["resized"] is False and decoded(r).format == "PNG" and decoded(r).size == (64, 48)
    assert "from image/bmp" in r.output


def test_image_type_comes_from_the_bytes_not_the_name(project, ctx):
    (project / "really_a_jpeg.txt").write_bytes(image_bytes("JPEG"))
    assert fstools.read(str(project / "really_a_jpeg.txt"), ctx=ctx).metadata["mime_type"] == "image/jpeg"
    (project / "notes.png").write_text("BM is how this text starts\n")
    r = fstools.read(str(project / "notes.png"), ctx=ctx)
    assert r.success and r.output == "     1\tBM is how this text starts"


def test_large_image_is_downscaled_within_the_bound(project, ctx):
    f = project / "wide.png"
    f.write_bytes(image_bytes("PNG", size=(3000, 1500)))
    r = fstools.read(str(f), ctx=ctx)
    assert r.metadata["resized"] is True
    assert (r.metadata["width"], r.metadata["height"]) == (2000, 1000) == decoded(r).size
    assert (r.metadata["original_width"], r.metadata["original_height"]) == (3000, 1500)
    assert r.metadata["mime_type"] == "image/png" and "from image/png, 3000x1500 px" in r.output


def test_image_over_the_byte_bound_shrinks_until_it_fits(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), image_max_bytes=20_000, image_max_dimension=500)
    f = project / "noise.jpg"
    f.write_bytes(image_bytes("JPEG", size=(400, 300), noise=True))
    assert f.stat().st_size > 20_000
    r = fstools.read(str(f), ctx=ctx)
    assert r.metadata["resized"] is True and r.metadata["size"] <= 20_000
    assert r.metadata["mime_type"] == "image/jpeg" and decoded(r).size == (r.metadata["width"], r.metadata["height"])
    assert r.metadata["width"] / r.metadata["height"] == pytest.approx(4 / 3, rel=0.02)


def test_palette_image_downscaled_keeps_working(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), image_max_dimension=100)
    f = project / "anim.gif"
    f.write_bytes(image_bytes("GIF", size=(300, 200), mode="P"))
    r = fstools.read(str(f), ctx=ctx)
    assert r.metadata["mime_type"] == "image/png" and decoded(r).size == (100, 67)


def test_damaged_image_is_a_clear_error(project, ctx):
    f = project / "broken.png"
    f.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    r = fstools.read(str(f), ctx=ctx)
    assert r.error_code == "encoding_error" and r.error.startswith(f"Cannot read image: {f} looks like image/png")
    assert ctx.read_record(str(f)) is not None  # refused for its kind: recorded so Write can replace it


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares its size and holds no pixels: all PIL reads before refusing a bomb."""
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    iend = b"IEND"
    chunk = lambda body: struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))  # noqa: E731
    return b"\x89PNG\r\n\x1a\n" + chunk(ihdr) + chunk(iend)


def test_decompression_bomb_is_too_large(project, ctx):
    f = project / "bomb.png"
    f.write_bytes(_png_header_only(40000, 40000))  # 1.6 Gpx declared
    r = fstools.read(str(f), ctx=ctx)
    assert r.error_code == "file_too_large" and "Image too large" in r.error


def test_media_over_the_size_limit(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), max_media_bytes=100)
    f = project / "big.png"
    f.write_bytes(image_bytes("PNG", noise=True))
    r = fstools.read(str(f), ctx=ctx)
    assert r.error_code == "file_too_large" and r.error.startswith(f"File too large: {f} is ")


# --- PDFs -----------------------------------------------------------------------------------------


def test_pdf_text_per_page(project, ctx):
    f = project / "doc.pdf"
    f.write_bytes(make_pdf(["Alpha page", "Beta page", "Gamma page"]))
    r = fstools.read(str(f), ctx=ctx)
    assert r.output == "--- Page 1 ---\nAlpha page\n\n--- Page 2 ---\nBeta page\n\n--- Page 3 ---\nGamma page"
    assert r.metadata["pages"] == "1-3" and r.metadata["pages_read"] == 3 and r.metadata["truncated"] is False


def test_pdf_page_selection(project, ctx):
    f = project / "doc.pdf"
    f.write_bytes(make_pdf([f"Text of page {n}" for n in range(1, 9)]))
    r = fstools.read(str(f), pages="2-3, 7", ctx=ctx)
    assert r.output.count("--- Page") == 3 and "--- Page 7 ---\nText of page 7" in r.output
    assert r.metadata["pages"] == "2-3,7" and r.metadata["page_count"] == 8
    assert fstools.read(str(f), pages="6-", ctx=ctx).metadata["pages"] == "6-8"


def test_pdf_page_cap_with_notice(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), pdf_max_pages=3)
    f = project / "long.pdf"
    f.write_bytes(make_pdf([f"Page text {n}" for n in range(1, 9)]))
    r = fstools.read(str(f), ctx=ctx)
    assert r.metadata["pages"] == "1-3" and r.metadata["truncated"] is True
    assert r.output.endswith(
        '[Showing 3 of 8 selected pages (at most 3 a call). Use pages="4-6" to read the next ones.]'
    )
    nxt = fstools.read(str(f), pages="4-6", ctx=ctx)
    assert "--- Page 6 ---\nPage text 6" in nxt.output and nxt.metadata["truncated"] is False


@pytest.mark.parametrize("spec", ["a-b", "0", "3-1", "1;2", "1,,2"])
def test_bad_page_specs(project, ctx, spec):
    f = project / "doc.pdf"
    f.write_bytes(make_pdf(["one", "two"]))
    r = fstools.read(str(f), pages=spec, ctx=ctx)
    assert r.error_code == "invalid_argument" and "pages" in r.error.lower()


def test_blank_pages_means_all_pages(project, ctx):
    f = project / "doc.pdf"
    f.write_bytes(make_pdf(["one", "two"]))
    assert fstools.read(str(f), pages=" ", ctx=ctx).metadata["pages"] == "1-2"


def test_pages_beyond_the_pdf(project, ctx):
    f = project / "doc.pdf"
    f.write_bytes(make_pdf(["one", "two"]))
    r = fstools.read(str(f), pages="5-9", ctx=ctx)
    assert r.error_code == "invalid_argument" and "2 page(s)" in r.error
    assert fstools.read(str(f), pages="2-9", ctx=ctx).metadata["pages"] == "2"


def test_parse_and_format_pages():
    assert parse_pages("1-3,2,8, 5 - 6", 10) == [1, 2, 3, 5, 6, 8]
    assert format_pages([1, 2, 3, 5, 6, 8]) == "1-3,5-6,8"
    with pytest.raises(PageSpecError):
        parse_pages("x", 3)


def _encrypted(data: bytes, user: str, owner: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user, owner_password=owner, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_encrypted_pdf_needs_a_password(project, ctx):
    f = project / "locked.pdf"
    f.write_bytes(_encrypted(make_pdf(["secret"]), user="pw", owner="owner"))
    r = fstools.read(str(f), ctx=ctx)
    assert (
        r.error_code == "encoding_error" and r.error == f"Cannot read PDF: {f} (it is encrypted and needs a password)"
    )
    assert ctx.read_record(str(f)) is not None  # refused for its kind: recorded so Write can replace it


def test_pdf_with_only_an_owner_password_reads(project, ctx):
    f = project / "restricted.pdf"
    f.write_bytes(_encrypted(make_pdf(["open text"]), user="", owner="owner"))
    r = fstools.read(str(f), ctx=ctx)
    assert r.success and "open text" in r.output


@pytest.mark.parametrize("data", [b"%PDF-1.4\ngarbage\n", make_pdf(["x"])[:60]])
def test_broken_pdf_is_a_clear_error(project, ctx, data):
    f = project / "broken.pdf"
    f.write_bytes(data)
    r = fstools.read(str(f), ctx=ctx)
    assert r.error_code == "encoding_error" and r.error.startswith(f"Cannot read PDF: {f} (")


def test_pdf_page_without_text(project, ctx):
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    out = io.BytesIO()
    writer.write(out)
    f = project / "scan.pdf"
    f.write_bytes(out.getvalue())
    r = fstools.read(str(f), ctx=ctx)
    assert (
        r.output == "--- Page 1 ---\n[No text on this page: it may be scanned or drawn]\n\n[Images of page(s) 1 follow]"
    )
    [page] = r.metadata["page_images"]
    assert (page["width"], page["height"]) == (417, 417)  # 200 pt at 150 dpi, rounded up


# --- notebooks ---------------------------------------------------------------------------------------


def test_notebook_cells_and_outputs(project, ctx):
    f = project / "analysis.ipynb"
    f.write_text(make_notebook())
    r = fstools.read(str(f), ctx=ctx)
    ids = [cell["id"] for cell in json.loads(f.read_text())["cells"]]
    assert r.metadata["cell_ids"] == ids
    blocks = r.output.split("\n\n")
    assert blocks[0] == f"--- Cell {ids[0]} (markdown) ---\n# Analysis\nSome *notes*."
    assert blocks[1] == (
        f"--- Cell {ids[1]} (code) ---\nprint('hello from the notebook')\n6 * 7\nOutput:\nhello from the notebook\n42"
    )
    assert blocks[2] == (
        f"--- Cell {ids[2]} (code) ---\nplot()\nOutput:\n<Figure size 640x480>\n[image/png output]\n[stderr]\nwarning: slow"
    )
    assert blocks[4].startswith(f"--- Cell {ids[4]} (code) ---\n1 / 0\nOutput:\n")
    assert "ZeroDivisionError: division by zero" in blocks[4] and "\x1b" not in r.output
    assert r.metadata["language"] == "python" and r.metadata["nbformat"] == 4 and r.metadata["cell_count"] == 5
    assert ctx.read_record(str(f)) is not None


def test_notebook_long_outputs_are_capped(project, ctx):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    text = "w" * 3000 + "\n" + "".join(f"row {i}\n" for i in range(500))
    nb = new_notebook(cells=[new_code_cell("dump()", outputs=[new_output("stream", name="stdout", text=text)])])
    f = project / "dump.ipynb"
    f.write_text(nbformat.writes(nb))
    r = fstools.read(str(f), ctx=ctx)
    assert "row 198\n[... 301 more lines of output]" in r.output and "row 199" not in r.output
    assert "\n" + "w" * 2000 + "...\n" in r.output + "\n" and "w" * 2001 not in r.output


def test_error_output_without_traceback(project, ctx):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    nb = new_notebook(
        cells=[new_code_cell("x", outputs=[new_output("error", ename="NameError", evalue="x", traceback=[])])]
    )
    f = project / "err.ipynb"
    f.write_text(nbformat.writes(nb))
    assert fstools.read(str(f), ctx=ctx).output.endswith("Output:\nNameError: x")


def test_invalid_notebook_is_shown_as_text(project, ctx):
    f = project / "broken.ipynb"
    f.write_text('{"cells": [ oops\n')
    r = fstools.read(str(f), ctx=ctx)
    assert r.success and r.output == '     1\t{"cells": [ oops'
    assert "notebook_error" in r.metadata and ctx.read_record(str(f)) is not None


def test_old_notebook_format_is_converted(project, ctx):
    v3 = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {},
        "worksheets": [{"cells": [{"cell_type": "code", "input": "print(1)", "outputs": [], "language": "python"}]}],
    }
    f = project / "v3.ipynb"
    f.write_text(json.dumps(v3))
    r = fstools.read(str(f), ctx=ctx)
    assert r.output == "--- Cell cell-0 (code) ---\nprint(1)" and r.metadata["nbformat"] == 4


def test_pdf_without_pages(project, ctx):
    f = project / "empty.pdf"
    f.write_bytes(make_pdf([]))
    assert fstools.read(str(f), ctx=ctx).error == f"Cannot read PDF: {f} (it has no pages)"


def test_one_damaged_page_does_not_hide_the_others(project, ctx):
    f = project / "damaged.pdf"
    f.write_bytes(make_pdf(["good page", "x) Tj ] ] >> (y"]))
    r = fstools.read(str(f), ctx=ctx)
    assert r.success and r.output.startswith("--- Page 1 ---\ngood page\n\n--- Page 2 ---\n")
    assert "[Text could not be extracted from this page: PdfReadError" in r.output
