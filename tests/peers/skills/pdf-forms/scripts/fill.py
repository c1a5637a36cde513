"""Fills a PDF form (an example script a skill ships; mcpick copies it and never runs it)."""

import sys

print("would fill", sys.argv[1:])
