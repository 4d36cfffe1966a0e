"""Output formats of a report, one module each: text, markdown, json, github (and the rule list)."""
from __future__ import annotations

from .github import render_github
from .jsondoc import FORMAT_VERSION, render_json
from .markdown import MARKDOWN_BUDGET, render_markdown
from .text import render_text

RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json, "github": render_github}

__all__ = [
           "FORMAT_VERSION",
           "MARKDOWN_BUDGET",
           "RENDERERS",
           "render_github",
           "render_json",
           "render_markdown",
           "render_text",
]
