"""Output formats of a report, one module each: text, markdown, json, github (and the rule list)."""
from __future__ import annotations

from ptxspec.diff.report_github import render_github
from ptxspec.diff.report_json import FORMAT_VERSION, render_json
from ptxspec.diff.report_markdown import MARKDOWN_BUDGET, render_markdown
from ptxspec.diff.report_text import render_text

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
