"""A corpus for binary sniffing: legacy-encoded texts in several languages, and binary data without NUL bytes.

`sniffing_rates()` measures looks_binary on it; the numbers are recorded in
docs/decisions/peer-behaviours.md (`python3 -m tests.helpers.corpus` prints them).
"""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

TEXTS: dict[str, str] = {
    "russian": (
        "Съешь же ещё этих мягких французских булок, да выпей чаю.\n"
        "Когда файл открывают в редакторе, кодировка должна определяться правильно:\n"
        "иначе вместо букв пользователь увидит бессмысленные значки, а правка испортит текст.\n"
        "— Это не ошибка, — сказал инженер, — это старая кодировка Windows.\n"
        "Номер договора № 15, сумма 2 500 рублей, срок «до пятницы».\n"
    ),
    "ukrainian": (
        "Чуєш їх, доцю, га? Кумедна ж ти, прощайся без ґольфів!\n"
        "Ця програма читає файли у старих кодуваннях і не псує їх під час редагування.\n"
        "Її автори — звичайні інженери, які поважають чужі дані.\n"
    ),
    "bulgarian": (
        "Жълтата дюля беше щастлива, че пухът, който цъфна, замръзна като гьон.\n"
        "Всеки ред от този файл е записан в кодировка за кирилица на Уиндоус.\n"
    ),
    "german": (
        "Falsches Üben von Xylophonmusik quält jeden größeren Zwerg.\n"
        "Die Datei wurde mit einem älteren Editor gespeichert; Umlaute wie ä, ö und ü sind einzelne Bytes.\n"
        "Grüße aus München – bis Dienstag, 14:30 Uhr.\n"
    ),
    "french": (
        "Portez ce vieux whisky au juge blond qui fume ; l'élève a déjà vu la façade.\n"
        "« Où est la bibliothèque ? » demanda-t-il, très ému, à côté du château.\n"
        "Les données sont enregistrées en ISO-8859-1 depuis des années.\n"
    ),
    "spanish": (
        "El pingüino Wenceslao hizo kilómetros bajo exhaustiva lluvia y frío, añoraba a su querido cachorro.\n"
        "¿Dónde está el archivo? ¡Aquí, en la carpeta de configuración!\n"
    ),
    "portuguese": (
        "À noite, vovô Kowalsky vê o ímã cair no pé do pinguim queixoso e vovó põe açúcar no chá de tâmaras.\n"
        "A função não altera a codificação do ficheiro.\n"
    ),
    "swedish": "Flygande bäckasiner söka hwila på mjuka tuvor.\nÅtgärden är klar; öppna filen igen.\n",
    "japanese": (
        "いろはにほへと　ちりぬるを　わかよたれそ　つねならむ\n"
        "このファイルは古いエンコーディングで保存されています。\n"
        "編集してもバイト列は壊れてはいけません。設定ファイル、ログ、ソースコードのコメントなど。\n"
        "東京都千代田区一丁目１番地（電話：０３−１２３４−５６７８）\n"
    ),
}

CODE_COMMENTS: dict[str, str] = {
    "russian": "# Функция считает сумму заказа и возвращает её в рублях\ndef total(items):\n    return sum(i.price for i in items)\n",
    "german": "// Berechnet die Größe des Puffers für Übertragungen\nint groesse(int n) { return n * 2; }\n",
    "french": "/* Vérifie que la réponse du serveur est complète et déjà validée */\nbool ok(void);\n",
    "japanese": "# 注文の合計金額を計算する関数\ndef total(items):\n    return sum(i.price for i in items)  # 税込み\n",
}

# Western files that are ASCII but for a few symbols: a licence header's ©, units, prices.
SYMBOLS: dict[str, str] = {
    "copyright": "/* Copyright © 2003 Example Corp. All rights reserved. */\nint main(void) {\n    return 0;\n}\n",
    "units": "Temperature: 23°C\nTolerance: ± 0.5 mm\nScreen: 1920×1080\n",
    "prices": "Apple;1,20€\nPear;2,10€\nTea;£3.50\n",
    "trademarks": "Widget® and Gadget™ are trademarks of Example Corp.\n",
}

ENCODINGS: dict[str, tuple[str, ...]] = {
    "russian": ("cp1251", "koi8_r"),
    "ukrainian": ("cp1251",),
    "bulgarian": ("cp1251",),
    "german": ("cp1252", "latin-1"),
    "french": ("cp1252", "latin-1"),
    "spanish": ("cp1252", "latin-1"),
    "portuguese": ("cp1252", "latin-1"),
    "swedish": ("cp1252", "latin-1"),
    "japanese": ("shift_jis", "euc_jp"),
}

SIZES = (64, 200, 1000, 4096, 65536)


def legacy_texts() -> Iterator[tuple[str, bytes]]:
    """(label, bytes): each text and code sample in each of its encodings, as the first SIZES bytes of a file."""
    for language, text in TEXTS.items():
        for codec in ENCODINGS[language]:
            data = text.encode(codec, "replace")  # KOI8-R has no «», Latin-1 no dashes: "?" as an old editor wrote
            for size in SIZES:
                body = (data * (size // len(data) + 1))[:size]
                yield f"{language}/{codec}/{size}", body
            code = CODE_COMMENTS.get(language)
            if code is not None:
                yield f"{language}/{codec}/code", code.encode(codec, "replace")
    for name, text in SYMBOLS.items():
        for codec in ("cp1252", "latin-1"):
            yield f"symbols/{codec}/{name}", text.encode(codec, "replace")


def _random_blob(rng: random.Random, size: int, low: int = 1, high: int = 255) -> bytes:
    return bytes(rng.randint(low, high) for _ in range(size))


def random_blobs(seed: int, count: int, size: int) -> list[bytes]:
    """`count` random NUL-free blobs of `size` bytes."""
    rng = random.Random(seed)
    return [_random_blob(rng, size) for _ in range(count)]


def binary_blobs(seed: int = 0) -> Iterator[tuple[str, bytes]]:
    """(label, bytes): binary data with no NUL byte, the kind a NUL test alone serves as text."""
    rng = random.Random(seed)
    for size in (16, 64, 200, 1000, 4096, 65536):
        for i in range(20 if size < 65536 else 5):
            yield f"random/{size}/{i}", _random_blob(rng, size)
            yield f"random-high/{size}/{i}", _random_blob(rng, size, 0x80, 0xFF)
    for byte in range(0x80, 0x100):
        yield f"repeated/{byte:#x}", bytes([byte]) * 128
    for i in range(20):
        yield f"control-dense/{i}", bytes(rng.choice(b"\x01\x02\x03\x04\x05\x06\x07abcdefgh") for _ in range(512))
        packed = zlib.compress(rng.randbytes(4096) + b"text " * 200, 9).replace(b"\x00", b"\x01")
        yield f"deflate/{i}", packed
        floats = struct.pack("<64d", *(rng.uniform(1.0, 2.0) for _ in range(64))).replace(b"\x00", b"\x01")
        yield f"float64/{i}", floats


@dataclass(frozen=True)
class Rates:
    texts: int
    false_positives: list[str]
    blobs: int
    false_negatives: list[str]

    def summary(self) -> str:
        fp, fn = len(self.false_positives), len(self.false_negatives)
        return (
            f"legacy text read as binary: {fp}/{self.texts} ({100 * fp / self.texts:.1f}%); "
            f"NUL-free binary read as text: {fn}/{self.blobs} ({100 * fn / self.blobs:.1f}%)"
        )


def sniffing_rates(looks_binary: Callable[[bytes], bool]) -> Rates:
    texts = list(legacy_texts())
    blobs = list(binary_blobs())
    return Rates(
        len(texts),
        [label for label, data in texts if looks_binary(data)],
        len(blobs),
        [label for label, data in blobs if not looks_binary(data)],
    )


if __name__ == "__main__":
    from collections import Counter

    from fstools._content.encodings import looks_binary

    rates = sniffing_rates(looks_binary)
    print(rates.summary())
    print("false positives:", rates.false_positives)
    print("false negatives by kind:", Counter(label.rsplit("/", 1)[0] for label in rates.false_negatives))
