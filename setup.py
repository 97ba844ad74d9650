"""The wheel also carries the SAM template and the functions' handler files, under
rhumbline/stack/: `rhumbline up` and `serve` run them as the local API when no checkout is around
(rhumbline/local/template.py, find_template). Everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithStack(build_py):
    def run(self) -> None:
        super().run()
        stack = Path(self.build_lib) / "rhumbline" / "stack"
        self.mkpath(str(stack))
        self.copy_file(str(ROOT / "template.yaml"), str(stack / "template.yaml"))
        for handler in sorted((ROOT / "functions").glob("*/app.py")):
            target = stack / "functions" / handler.parent.name
            self.mkpath(str(target))
            self.copy_file(str(handler), str(target / "app.py"))


setup(cmdclass={"build_py": BuildWithStack})
