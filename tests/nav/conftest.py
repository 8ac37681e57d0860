from __future__ import annotations

from pathlib import Path

import pytest

import fstools
from tests.helpers.trees import write

PARSER = '''"""Parse things: parse_config is named here, in a docstring."""
import os
from util import helper


class Parser:
    def feed(self, data):
        # feed the parser: parse_config in a comment
        return parse_config(data)

    async def close(self):
        pass


def parse_config(text, *, strict=False):
    s = "parse_config in a string"
    return helper(text)


def parse_config_v2(text):
    return parse_config(text)
'''
UTIL = """from parser import parse_config


def helper(x):
    return parse_config(x)
"""
MAIN_C = """#include "slab.h"
/* parse_config in a comment */
int parse_config(const char *s) { return 0; }
int main(void) { return parse_config("parse_config"); }
"""


@pytest.fixture
def tree(project: Path) -> Path:
    write(project / "parser.py", PARSER)
    write(project / "util.py", UTIL)
    write(project / "main.c", MAIN_C)
    write(project / "README.md", "parse_config is documented here\n")
    return project


@pytest.fixture
def nav_ctx(tree: Path) -> fstools.ExecutionContext:
    return fstools.ExecutionContext(working_dir=str(tree))
