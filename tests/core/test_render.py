"""ToolResult.to_text() and to_content(provider), checked against each provider's own SDK types."""

from __future__ import annotations

import base64

import pytest
from anthropic.types import ToolResultBlockParam
from mcp import types as mcp_types
from openai.types.chat import ChatCompletionToolMessageParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter, ValidationError

import fstools
from tests.helpers.samples import make_scanned_pdf

PROVIDERS = ("openai", "openai-responses", "anthropic", "mcp")


def envelope(provider: str, blocks: list[dict]) -> dict:
    """`blocks` in the message or item that carries a tool result in `provider`'s API."""
    if provider == "openai":
        return {"role": "tool", "tool_call_id": "call_1", "content": blocks}
    if provider == "openai-responses":
        return {"type": "function_call_output", "call_id": "call_1", "output": blocks}
    return {"type": "tool_result", "tool_use_id": "toolu_1", "content": blocks}


# Adapters live as long as the module: a lazily validated Iterable field needs its adapter alive.
_SDK_TYPES = {
    "openai": (TypeAdapter(ChatCompletionToolMessageParam), "content"),
    "openai-responses": (TypeAdapter(FunctionCallOutput), "output"),
    "anthropic": (TypeAdapter(ToolResultBlockParam), "content"),
}
_MCP_BLOCK = TypeAdapter(mcp_types.ContentBlock)


def validate(provider: str, blocks: list[dict]) -> list[dict]:
    """The blocks as the provider's SDK type reads them; ValidationError if it does not accept them."""
    if provider == "mcp":
        return [_MCP_BLOCK.validate_python(b).model_dump(by_alias=True, exclude_none=True) for b in blocks]
    adapter, field = _SDK_TYPES[provider]
    validated = adapter.validate_python(envelope(provider, blocks))
    # Iterable fields validate lazily: consuming them is what checks each block.
    return [dict(b) for b in validated[field]]


@pytest.fixture
def image_result(project, ctx):
    from PIL import Image

    Image.new("RGB", (3, 2), "blue").save(project / "dot.png")
    r = fstools.read(str(project / "dot.png"), ctx=ctx)
    assert r.success and r.metadata["is_image"]
    return r


def test_text_is_output_then_notice_then_warnings():
    r = fstools.ToolResult.ok(
        "a\nb", notice="(Showing 2 of 9: call again with offset=2 for more.)", warnings=["w1", "w2"]
    )
    assert r.to_text() == "a\nb\n(Showing 2 of 9: call again with offset=2 for more.)\n(warning: w1)\n(warning: w2)"
    assert fstools.ToolResult.ok("only").to_text() == "only"
    assert fstools.ToolResult.ok("", warnings=["w"]).to_text() == "(warning: w)"


def test_a_failure_reads_as_its_error_and_code():
    r = fstools.ToolResult.fail("File not found: /p/x", "file_not_found", notice="ignored")
    assert r.to_text() == "File not found: /p/x (error_code: file_not_found)"


def test_text_carries_no_lone_surrogates():
    r = fstools.ToolResult.ok("caf\udce9", warnings=["bad \udcff name"])
    assert r.to_text() == "caf\ufffd\n(warning: bad \ufffd name)"
    r.to_text().encode("utf-8")


def test_real_truncated_results_tell_a_text_reader(project, ctx):
    for i in range(4):
        (project / f"f{i}.txt").write_text("needle\n" * 3)
    grep = fstools.grep("needle", path=str(project), ctx=ctx, head_limit=1)
    # The notice ends the output itself (one path, then the notice), and to_text() does not repeat it.
    assert grep.output.splitlines()[1:] == ["(Showing files 1-1 of 4: call again with offset=1 for more.)"]
    assert grep.to_text() == grep.output
    glob = fstools.glob("*.txt", path=str(project), ctx=ctx, limit=3)
    assert glob.output.splitlines()[-1].startswith("(Showing the 3 newest of 4 matching files")
    assert glob.to_text() == glob.output and len(glob.output.splitlines()) == 4
    read = fstools.read(str(project / "f0.txt"), ctx=ctx, limit=1)
    assert read.to_text() == read.output and read.output.endswith("Use offset=2 to read more.]")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_text_results_are_one_text_block_each_sdk_accepts(provider):
    r = fstools.ToolResult.ok("out", notice="(more)", warnings=["w"])
    blocks = r.to_content(provider)
    assert len(blocks) == 1 and blocks[0]["text"] == "out\n(more)\n(warning: w)"
    assert validate(provider, blocks) == blocks


@pytest.mark.parametrize("provider", PROVIDERS)
def test_failures_and_empty_results_still_give_a_non_empty_text_block(provider):
    failed = fstools.ToolResult.fail("nope", "not_found").to_content(provider)
    assert [b["text"] for b in failed] == ["nope (error_code: not_found)"]
    empty = fstools.ToolResult.ok("").to_content(provider)
    assert [b["text"] for b in empty] == ["(no output)"]  # Anthropic refuses an empty text block
    assert validate(provider, empty) == empty


def test_images_are_image_blocks_in_each_api_that_takes_them(image_result):
    data, mime = image_result.metadata["base64_data"], image_result.metadata["mime_type"]
    assert base64.b64decode(data).startswith(b"\x89PNG")
    responses = image_result.to_content("openai-responses")
    assert responses[1] == {"type": "input_image", "image_url": f"data:{mime};base64,{data}", "detail": "auto"}
    anthropic = image_result.to_content("anthropic")
    assert anthropic[1] == {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
    mcp = image_result.to_content("mcp")
    assert mcp[1] == {"type": "image", "data": data, "mimeType": mime}
    for provider, blocks in (("openai-responses", responses), ("anthropic", anthropic), ("mcp", mcp)):
        assert blocks[0]["text"].startswith("Image ") and validate(provider, blocks) == blocks


@pytest.fixture
def pdf_result(project, ctx):
    """A Read of a real two-page scanned PDF, its pages rendered by pdfium."""
    (project / "doc.pdf").write_bytes(make_scanned_pdf(2, size=(200, 250)))
    r = fstools.read(str(project / "doc.pdf"), ctx=ctx)
    assert r.success and [p["page"] for p in r.metadata["page_images"]] == [1, 2]
    return r


@pytest.mark.parametrize("provider", ["openai-responses", "anthropic", "mcp"])
def test_pdf_page_images_follow_the_text_as_image_blocks(pdf_result, provider):
    blocks = pdf_result.to_content(provider)
    pages = pdf_result.metadata["page_images"]
    assert blocks[0]["text"] == pdf_result.to_text() and "[Images of page(s) 1-2 follow]" in blocks[0]["text"]
    # The same block shapes as a Read of an image file, in page order.
    assert blocks[1:] == [image_only(page["mime_type"], page["base64_data"]).to_content(provider)[1] for page in pages]
    for block, page in zip(blocks[1:], pages, strict=True):
        assert page["base64_data"] in str(block) and base64.b64decode(page["base64_data"]).startswith(b"\x89PNG")
    assert validate(provider, blocks) == blocks


def test_pdf_page_images_stay_out_of_chat_completions_tool_messages(pdf_result):
    blocks = pdf_result.to_content("openai")
    assert [b["type"] for b in blocks] == ["text"] and "[Images of page(s) 1-2 follow]" in blocks[0]["text"]
    assert validate("openai", blocks) == blocks


def image_only(mime: str, data: str) -> fstools.ToolResult:
    return fstools.ToolResult(True, "", images=[fstools.Image(mime, data)])


def test_a_failed_result_carries_no_images():
    failed = fstools.ToolResult.fail("nope", "io_error")
    failed.images.append(fstools.Image("image/png", "AA==", 1, 1))
    assert len(failed.to_content("anthropic")) == 1


def test_images_are_the_typed_field_whichever_tool_returned_them():
    """Renderers read `images`, never a tool's metadata keys: metadata that looks like an image is just metadata."""
    lookalike = fstools.ToolResult.ok(
        "x", base64_data="AA==", mime_type="image/png", page_images=[{"base64_data": "AA=="}]
    )
    assert [b["type"] for b in lookalike.to_content("anthropic")] == ["text"]
    typed = fstools.ToolResult(
        True, "x", images=[fstools.Image("image/gif", "R0lG", 1, 1), fstools.Image.from_bytes(b"\x89PNG", "image/png")]
    )
    blocks = typed.to_content("mcp")
    assert blocks[1:] == [
        {"type": "image", "data": "R0lG", "mimeType": "image/gif"},
        {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
    ]


def test_chat_completions_tool_messages_take_text_only(image_result):
    """A Chat Completions tool message accepts text parts only: the image is described, not attached."""
    blocks = image_result.to_content("openai")
    assert [b["type"] for b in blocks] == ["text"] and "image/png, 3x2 px" in blocks[0]["text"]
    assert validate("openai", blocks) == blocks
    image_part = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}
    with pytest.raises(ValidationError):
        validate("openai", [*blocks, image_part])


def test_unknown_provider_is_a_value_error():
    with pytest.raises(ValueError, match="unknown content provider 'gemini'"):
        fstools.ToolResult.ok("x").to_content("gemini")
