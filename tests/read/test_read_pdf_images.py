"""Read of a PDF returns images of the pages its text does not carry, rendered by the real pdfium (pypdfium2)."""

from __future__ import annotations

import base64
import io
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

import fstools
from fstools._read.pdfpages import EXTRA_HINT
from fstools._read.read import PDF_MAX_PAGE_IMAGES
from tests.helpers.processes import fstools_cmd
from tests.helpers.samples import make_pdf, make_scanned_pdf

ROOT = Path(__file__).resolve().parents[2]


def decoded(page_image: dict) -> Image.Image:
    img = Image.open(io.BytesIO(base64.b64decode(page_image["base64_data"])))
    img.load()
    assert img.format == "PNG" and page_image["mime_type"] == "image/png"
    assert img.size == (page_image["width"], page_image["height"])
    return img.convert("RGB")


def merged(*pdfs: bytes) -> bytes:
    """The pages of `pdfs` in one PDF (pypdf's writer), e.g. text pages around a scanned one."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    for pdf in pdfs:
        writer.append(io.BytesIO(pdf))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture
def no_pdfium(monkeypatch):
    """pypdfium2 as if not installed: importing it raises ImportError."""
    monkeypatch.setitem(sys.modules, "pypdfium2", None)


def test_a_scanned_page_comes_back_as_a_png_of_the_page(project, ctx):
    (project / "scan.pdf").write_bytes(make_scanned_pdf())  # 800x1000 px at 100 dpi: an 8x10 inch page
    r = fstools.read(str(project / "scan.pdf"), ctx=ctx)
    assert r.success and "[No text on this page: it may be scanned or drawn]" in r.output
    assert r.output.endswith("[Images of page(s) 1 follow]") and "warnings" not in r.metadata
    [page] = r.metadata["page_images"]
    assert page["page"] == 1 and (page["width"], page["height"]) == (1200, 1500)  # 150 dpi
    img = decoded(page)
    # The black bar across the upper fifth, white elsewhere: the page itself, not a blank bitmap.
    assert img.getpixel((600, 300)) == (0, 0, 0)
    assert img.getpixel((600, 1200)) == (255, 255, 255) and img.getpixel((20, 20)) == (255, 255, 255)


def test_a_text_pdf_gets_no_images_unless_asked(project, ctx):
    (project / "doc.pdf").write_bytes(make_pdf(["Alpha page with enough text", "Beta page with enough text"]))
    auto = fstools.read(str(project / "doc.pdf"), ctx=ctx)
    assert "page_images" not in auto.metadata and "warnings" not in auto.metadata
    assert auto.output == "--- Page 1 ---\nAlpha page with enough text\n\n--- Page 2 ---\nBeta page with enough text"
    every = fstools.read(str(project / "doc.pdf"), ctx=ctx, page_images="all")
    assert [p["page"] for p in every.metadata["page_images"]] == [1, 2]
    assert every.output.startswith(auto.output) and every.output.endswith("[Images of page(s) 1-2 follow]")
    img = decoded(every.metadata["page_images"][0])
    assert img.width == 1275 and img.height in (1650, 1651)  # US Letter at 150 dpi (pdfium rounds up)
    # The rendered text line: dark pixels near the top left, where the page draws it.
    top = img.crop((100, 100, 900, 250))
    assert top.convert("L").getextrema()[0] < 100


def test_only_the_textless_pages_of_a_mixed_pdf_are_rendered(project, ctx):
    text = make_pdf(["The introduction, in words", "The conclusion, in words"])
    (project / "mixed.pdf").write_bytes(merged(text, make_scanned_pdf(), text))
    r = fstools.read(str(project / "mixed.pdf"), ctx=ctx)
    assert r.metadata["page_count"] == 5 and [p["page"] for p in r.metadata["page_images"]] == [3]
    assert "[Images of page(s) 3 follow]" in r.output
    assert decoded(r.metadata["page_images"][0]).getpixel((600, 300)) == (0, 0, 0)


def test_a_page_with_a_few_stray_characters_counts_as_scanned(project, ctx):
    (project / "numbered.pdf").write_bytes(merged(make_pdf(["- 12 -"]), make_pdf(["A real sentence of text here."])))
    r = fstools.read(str(project / "numbered.pdf"), ctx=ctx)
    assert "- 12 -" in r.output and [p["page"] for p in r.metadata["page_images"]] == [1]


def test_none_turns_page_images_off(project, ctx):
    (project / "scan.pdf").write_bytes(make_scanned_pdf())
    r = fstools.read(str(project / "scan.pdf"), ctx=ctx, page_images="none")
    assert r.success and "page_images" not in r.metadata and "warnings" not in r.metadata
    assert r.output == "--- Page 1 ---\n[No text on this page: it may be scanned or drawn]"


def test_at_most_five_page_images_a_call_and_the_notice_names_the_rest(project, ctx):
    (project / "scan.pdf").write_bytes(make_scanned_pdf(7, size=(200, 250)))
    r = fstools.read(str(project / "scan.pdf"), ctx=ctx)
    assert PDF_MAX_PAGE_IMAGES == 5 and [p["page"] for p in r.metadata["page_images"]] == [1, 2, 3, 4, 5]
    assert r.output.endswith(
        "[Images of page(s) 1-5 follow]\n\n"
        '[No image of page(s) 6-7: at most 5 page images a call; use pages="6-7" to see them]'
    )
    rest = fstools.read(str(project / "scan.pdf"), ctx=ctx, pages="6-7")
    assert [p["page"] for p in rest.metadata["page_images"]] == [6, 7]
    every = fstools.read(str(project / "scan.pdf"), ctx=ctx, page_images="all")
    assert 'use pages="6-7" page_images="all" to see them' in every.output


def test_the_page_notice_stays_last_when_pages_are_capped_too(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), pdf_max_pages=2)
    (project / "scan.pdf").write_bytes(make_scanned_pdf(3, size=(200, 250)))
    r = fstools.read(str(project / "scan.pdf"), ctx=ctx)
    assert [p["page"] for p in r.metadata["page_images"]] == [1, 2]
    assert r.output.endswith(
        '[Images of page(s) 1-2 follow]\n\n[Showing 2 of 3 selected pages (at most 2 a call). Use pages="3" to read the next ones.]'
    )


def test_page_images_keep_within_the_image_bounds(project):
    (project / "scan.pdf").write_bytes(make_scanned_pdf())
    small = fstools.ExecutionContext(working_dir=str(project), image_max_dimension=300)
    [page] = fstools.read(str(project / "scan.pdf"), ctx=small).metadata["page_images"]
    assert (page["width"], page["height"]) == (240, 300)  # the page's aspect, its long side at the bound
    assert decoded(page).getpixel((120, 60)) == (0, 0, 0)
    tight = fstools.ExecutionContext(working_dir=str(project), image_max_bytes=2000)
    [page] = fstools.read(str(project / "scan.pdf"), ctx=tight).metadata["page_images"]
    assert len(base64.b64decode(page["base64_data"])) <= 2000 and page["width"] < 1200
    assert abs(page["width"] / page["height"] - 0.8) < 0.02  # shrunk, aspect kept


def test_without_pypdfium2_the_text_comes_back_with_a_note(project, ctx, no_pdfium):
    (project / "scan.pdf").write_bytes(make_scanned_pdf(2, size=(200, 250)))
    r = fstools.read(str(project / "scan.pdf"), ctx=ctx)
    assert r.success and "page_images" not in r.metadata
    assert r.output == (
        "--- Page 1 ---\n[No text on this page: it may be scanned or drawn]\n\n"
        "--- Page 2 ---\n[No text on this page: it may be scanned or drawn]"
    )
    assert r.metadata["warnings"] == [f"{EXTRA_HINT} (to see page(s) 1-2)"]
    assert r.to_text().endswith(
        "(warning: page images need the pdf-images extra: pip install 'fstools[pdf-images]' (to see page(s) 1-2))"
    )
    (project / "doc.pdf").write_bytes(make_pdf(["A page with plenty of text on it"]))
    text_only = fstools.read(str(project / "doc.pdf"), ctx=ctx)
    assert "warnings" not in text_only.metadata  # nothing was missed: no note


def test_a_page_pdfium_cannot_render_is_a_warning_not_a_failure(project, ctx, monkeypatch):
    import pypdfium2

    real_render = pypdfium2.PdfPage.render
    calls = []

    def render(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:  # the second page fails, as pdfium does on a damaged content stream
            raise pypdfium2.PdfiumError("Failed to render page")
        return real_render(self, *args, **kwargs)

    monkeypatch.setattr(pypdfium2.PdfPage, "render", render)
    (project / "scan.pdf").write_bytes(make_scanned_pdf(3, size=(200, 250)))
    r = fstools.read(str(project / "scan.pdf"), ctx=ctx)
    assert r.success and [p["page"] for p in r.metadata["page_images"]] == [1, 3]
    assert r.metadata["warnings"] == ["page 2 could not be rendered: Failed to render page"]
    assert "[Images of page(s) 1,3 follow]" in r.output


def test_a_pdf_pdfium_cannot_open_keeps_its_text(project, ctx, monkeypatch):
    import pypdfium2

    def refuse(*args, **kwargs):
        raise pypdfium2.PdfiumError("Failed to load document (PDFium: Data format error).")

    monkeypatch.setattr(pypdfium2, "PdfDocument", refuse)
    (project / "scan.pdf").write_bytes(make_scanned_pdf())
    r = fstools.read(str(project / "scan.pdf"), ctx=ctx)
    assert r.success and "page_images" not in r.metadata and "[Images" not in r.output
    assert r.metadata["warnings"] == [
        "page images could not be rendered: Failed to load document (PDFium: Data format error)."
    ]


def test_page_images_must_be_one_of_the_modes(project, ctx):
    (project / "scan.pdf").write_bytes(make_scanned_pdf())
    r = fstools.read(str(project / "scan.pdf"), ctx=ctx, page_images="some")
    assert not r.success and r.error_code == "invalid_argument" and "auto, all, none" in r.error


def test_reading_text_and_text_pdfs_does_not_load_pdfium(project):
    (project / "a.txt").write_text("hello\n")
    (project / "doc.pdf").write_bytes(make_pdf(["A page with plenty of text on it"]))
    code = (
        f"import sys, fstools; fstools.read({str(project / 'a.txt')!r}); fstools.read({str(project / 'doc.pdf')!r});"
        "print([m for m in ('pypdfium2', 'fstools._read.pdfpages') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_the_cli_takes_page_images(project):
    import json

    (project / "scan.pdf").write_bytes(make_scanned_pdf())
    shown = fstools_cmd("read", "scan.pdf", "--json", cwd=project)
    [page] = json.loads(shown.stdout)["metadata"]["page_images"]
    assert shown.returncode == 0 and decoded(page).size == (1200, 1500)
    off = fstools_cmd("read", "scan.pdf", "--page-images", "none", "--json", cwd=project)
    assert off.returncode == 0 and "page_images" not in json.loads(off.stdout)["metadata"]
