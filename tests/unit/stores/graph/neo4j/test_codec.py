"""The Neo4j driver decodes rows with its Rust packstream codec (the `neo4j-rust-ext` dependency).

Without it the driver silently falls back to pure Python, which was most of the client time of a
large answer.
"""

from neo4j._codec.packstream import v1


def test_the_rust_packstream_codec_is_installed_and_used() -> None:
    assert v1._rust_pack is not None
    assert v1._rust_unpack is not None
