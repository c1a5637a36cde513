"""FastMCP's skills provider over a folder of skills, for mcpick's skills tests.

    python skills_server.py ROOT [--supporting template|resources] [--tamper NAME/PATH] [--extension]

stdio. Each folder of ROOT with a `SKILL.md` is a skill, served by FastMCP's own
`SkillsDirectoryProvider` (not a copy of it): `skill://NAME/SKILL.md` and
`skill://NAME/_manifest` listed (the manifest: every file's path, size and `sha256:` digest),
the other files listed too (`--supporting resources`) or read through a template (default).
`--tamper NAME/PATH` appends a line to that file after the skills were scanned, so what the
server serves no longer matches its own manifest (a server whose files changed under it, or
a file changed on the way).

`--extension` also declares the MCP Skills extension (`io.modelcontextprotocol/skills`,
`skills/list` and `skills/get` in the 2026-07-28 era) through FastMCP's `SkillsExtension`,
with its experimental provider (live byte-preserving reads); the same resources stay listed.

The `tests/peers/skills/` folder is the one the tests copy into a temporary ROOT.
"""

import argparse
from pathlib import Path

from fastmcp import FastMCP
from fastmcp.server.providers.skills import SkillsDirectoryProvider

parser = argparse.ArgumentParser()
parser.add_argument("root")
parser.add_argument("--supporting", choices=["template", "resources"], default="template")
parser.add_argument("--tamper", default=None)
parser.add_argument("--extension", action="store_true")
args = parser.parse_args()

mcp = FastMCP("skills-peer")
provider = SkillsDirectoryProvider(
    roots=args.root,
    supporting_files=args.supporting,
    experimental_skills=args.extension,
)
mcp.add_provider(provider)
if args.extension:
    from fastmcp.skills.extension import SkillsExtension

    mcp.add_extension(SkillsExtension(providers=[provider]))
if args.tamper:
    with open(Path(args.root) / args.tamper, "a", encoding="utf-8") as f:
        f.write("tampered after the manifest was made\n")

if __name__ == "__main__":
    mcp.run(show_banner=False)
