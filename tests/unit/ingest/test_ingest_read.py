"""Reading one file: size, binary and encoding checks, hashes and line counts."""

from __future__ import annotations

from hashlib import sha256
from pathlib import Path

from rhumbline.ingest.facts import SkippedFile, SourceFile
from rhumbline.ingest.discover.read import MAX_FILE_BYTES, read_source


def test_a_python_file_is_hashed_counted_and_parsed(tmp_path: Path):
    data = b'"""Doc."""\ndef f():\n    return 1\n'
    (tmp_path / "m.py").write_bytes(data)
    source = read_source(str(tmp_path), "m.py")
    assert (source.path, source.language, source.line_count, source.size) == ("m.py", "python", 3, len(data))
    assert source.content_hash == sha256(data).hexdigest()
    assert source.code is not None and [d.name for d in source.code.definitions] == ["f"]


def test_other_text_files_are_listed_without_parsing(tmp_path: Path):
    (tmp_path / "notes.txt").write_bytes(b"# Title\nno trailing newline")
    source = read_source(str(tmp_path), "notes.txt")
    assert (source.language, source.line_count, source.code) == ("text", 2, None)


def test_skips_binary_large_undecodable_and_unreadable(tmp_path: Path):
    (tmp_path / "image.png").write_bytes(b"\x89PNG\x00\x00")
    (tmp_path / "huge.txt").write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    (tmp_path / "noise.txt").write_bytes(bytes(range(128, 256)) * 4)  # text in no encoding
    (tmp_path / "adir.py").mkdir()
    assert read_source(str(tmp_path), "image.png") == SkippedFile("image.png", "binary")
    assert read_source(str(tmp_path), "huge.txt") == SkippedFile("huge.txt", "too_large")
    assert read_source(str(tmp_path), "noise.txt") == SkippedFile("noise.txt", "undecodable")
    assert read_source(str(tmp_path), "adir.py") == SkippedFile("adir.py", "unreadable")
    assert read_source(str(tmp_path), "gone.py") == SkippedFile("gone.py", "unreadable")


def test_an_undeclared_encoding_is_detected(tmp_path: Path):
    """Legacy code pages: Latin-1 Java (a tie between single-byte code pages reads as Western),
    Cyrillic and Japanese comments; the definitions are parsed either way."""
    sources = {
        "Cart.java": ("/** Le panier, réécrit. */\nclass Cart { void add() {} }\n", "latin-1"),
        "Short.java": ("/** Café. */\nclass Short {}\n", "latin-1"),
        "Ru.java": ("/** Корзина покупателя, переписанная заново. */\nclass Ru {}\n", "cp1251"),
        "Jp.java": ("/** 買い物かごのクラスです。 */\nclass Jp {}\n", "shift_jis"),
    }
    for path, (text, encoding) in sources.items():
        (tmp_path / path).write_bytes(text.encode(encoding))
        source = read_source(str(tmp_path), path)
        assert isinstance(source, SourceFile) and source.code is not None, (path, source)
        assert source.code.definitions[0].docstring == text.split("*/")[0].removeprefix("/** ").strip()


def test_a_declared_encoding_and_a_bom_are_honoured(tmp_path: Path):
    (tmp_path / "old.py").write_bytes('# -*- coding: latin-1 -*-\ndef f():\n    "Café."\n'.encode("latin-1"))
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfdef g():\n    pass\n")
    old = read_source(str(tmp_path), "old.py")
    assert old.code.definitions[0].docstring == "Café."
    bom = read_source(str(tmp_path), "bom.py")
    assert [(d.name, d.start_line) for d in bom.code.definitions] == [("g", 1)]
    assert bom.code.syntax_errors is False
