"""The exploration tools' modules: light to import (the gateway loads them all), consistent."""

from __future__ import annotations


def test_the_tool_modules_stay_light_and_agree_with_the_models() -> None:
    import subprocess
    import sys

    from rhumbline.stores.relational.schema.exploration import MAX_CONTENT
    from rhumbline.tools import add_annotation

    assert add_annotation.MAX_CONTENT == MAX_CONTENT
    # The gateway imports every tool module to list them: none may pull in a store library.
    code = (
        "import sys\n"
        "from rhumbline.runtime.spec import load_spec\n"
        "for name in ('get_node', 'query_graph', 'trace_path', 'blast_radius', 'graph_diff',"
        " 'add_annotation', 'list_annotations'):\n"
        "    load_spec(name)\n"
        "print(sorted(m for m in ('sqlalchemy', 'neo4j', 'sqlite3') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"
