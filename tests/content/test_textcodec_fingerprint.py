"""Encoding detection/round-trips and read-record fingerprints on real bytes and files."""

from __future__ import annotations

import codecs
import os

import pytest

from fstools._content.encodings import TextEncoding, decode, encode, line_ending, looks_binary, sniff_encoding
from fstools._content.fingerprints import fingerprint, remember, unchanged_since
from fstools._core.context import ExecutionContext


@pytest.mark.parametrize(
    "data,label",
    [
        (codecs.BOM_UTF8 + "héllo".encode(), "utf-8-sig"),
        (codecs.BOM_UTF16_LE + "héllo".encode("utf-16-le"), "utf-16-le"),
        (codecs.BOM_UTF16_BE + "héllo".encode("utf-16-be"), "utf-16-be"),
        (codecs.BOM_UTF32_LE + "héllo".encode("utf-32-le"), "utf-32-le"),
        (codecs.BOM_UTF32_BE + "héllo".encode("utf-32-be"), "utf-32-be"),
        (b"plain ascii", "utf-8"),
        ("naïve café ☕".encode(), "utf-8"),
    ],
)
def test_bom_and_utf8(data, label):
    enc = sniff_encoding(data)
    assert enc.label == label
    text = decode(data, enc)
    assert "llo" in text or "ascii" in text or "café" in text
    assert encode(text, enc) == data


def test_truncated_utf8_sample_is_still_utf8():
    data = "ab☕".encode()[:-1]
    assert sniff_encoding(data, complete=False).name == "utf-8"
    assert sniff_encoding(data, complete=True).name != "utf-8"


def test_cp1251_and_shift_jis_detected_readably():
    russian = ("Привет, мир! Это проверка кодировки файла. " * 20).encode("cp1251")
    enc = sniff_encoding(russian)
    assert "Привет, мир" in decode(russian, enc)
    japanese = ("こんにちは世界。これはエンコーディングのテストです。" * 20).encode("shift_jis")
    enc = sniff_encoding(japanese)
    assert "こんにちは世界" in decode(japanese, enc)


def test_surrogateescape_round_trip_keeps_stray_bytes():
    data = b"good line\nbad \xff\xfe byte\n"
    text = decode(data, TextEncoding("utf-8"), errors="surrogateescape")
    assert encode(text, TextEncoding("utf-8"), errors="surrogateescape") == data
    assert "\ufffd" in decode(data, TextEncoding("utf-8"))


def test_binary_detection():
    assert looks_binary(b"\x7fELF\x02\x01")
    assert looks_binary(b"abc\x00def")
    assert looks_binary(b"PK\x03\x04rest")
    assert not looks_binary(codecs.BOM_UTF16_LE + "hi".encode("utf-16-le"))
    assert not looks_binary(b"just text\n")


@pytest.mark.parametrize(
    "text,style",
    [("a\nb\n", "LF"), ("a\r\nb\r\n", "CRLF"), ("a\rb\r", "CR"), ("a\r\nb\n", "mixed"), ("abc", "none")],
)
def test_line_ending(text, style):
    assert line_ending(text) == style


def test_fingerprint_and_touch_is_not_a_change(tmp_path):
    f = tmp_path / "a.txt"
    f.write_bytes(b"content")
    st = os.stat(f)
    record = fingerprint(st, b"content")
    assert record.digest is not None and unchanged_since(record, st, None)
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    touched = os.stat(f)
    assert unchanged_since(record, touched, b"content")
    assert not unchanged_since(record, touched, None)
    f.write_bytes(b"CONTENT")
    assert not unchanged_since(record, os.stat(f), b"CONTENT")
    f.write_bytes(b"longer content")
    assert not unchanged_since(record, os.stat(f), b"longer content")


def test_stat_only_record_for_unhashed_reads(tmp_path):
    f = tmp_path / "a.txt"
    f.write_bytes(b"x")
    record = fingerprint(os.stat(f), None)
    assert record.digest is None
    ctx = ExecutionContext(working_dir=str(tmp_path))
    remember(ctx, str(f), os.stat(f), b"x")
    assert ctx.read_record(str(f)).digest is not None
    ctx.forget_read(str(f))
    assert ctx.read_record(str(f)) is None


@pytest.mark.parametrize(
    "text,codec",
    [
        ("Café résumé naïve déjà vu, façade", "latin-1"),
        ("# comment: größe\nx = 'Straße'\n" * 3, "latin-1"),
        ("Съешь же ещё этих мягких французских булок", "cp1251"),
        ("你好，世界。这是一个编码测试。" * 10, "gb18030"),
        ("안녕하세요 세계. 인코딩 테스트입니다." * 10, "euc_kr"),
        ("Καλημέρα κόσμε, δοκιμή κωδικοποίησης." * 5, "cp1253"),
    ],
)
def test_legacy_encodings_come_out_readable(text, codec):
    data = text.encode(codec)
    assert decode(data, sniff_encoding(data)) == text


def test_undetectable_bytes_still_decode():
    data = bytes(range(0x80, 0x100)) * 4
    enc = sniff_encoding(data)
    assert len(decode(data, enc)) > 0


@pytest.mark.parametrize(
    "text,codec",
    [
        ("# Комментарий: функция для обработки данных\nx = 1\n", "koi8_r"),
        ("日本語のテキストです。エンコーディングの検出。" * 5, "euc_jp"),
        ("日本語のテキストです。エンコーディングの検出。" * 5, "shift_jis"),
    ],
)
def test_cyrillic_and_japanese_families_told_apart(text, codec):
    data = text.encode(codec)
    assert decode(data, sniff_encoding(data)) == text
