"""FastMCP's skills providers over a folder of skills, for mcpick's skills tests.

    python skills_server.py ROOT [--supporting template|resources] [--tamper NAME/PATH]
                                 [--extension | --extension-only]

stdio, FastMCP 4.2.3 (tests/peers/fastmcp/requirements.txt). Each folder of ROOT with a
`SKILL.md` is a skill, served by FastMCP's own providers (not copies of them):

- default: the 4.1 resource-only `SkillsDirectoryProvider`
  (`fastmcp.server.providers.skills`, deprecated in 4.2, removed in 4.3):
  `skill://NAME/SKILL.md` and `skill://NAME/_manifest` listed (the manifest: every file's
  path, size and `sha256:` digest), the other files listed too (`--supporting resources`)
  or read through a template (default). It reads the files from disk on each read.
- `--extension`: 4.2's `SkillsDirectoryProvider` (`fastmcp.skills.provider`), which serves
  the MCP Skills extension (`io.modelcontextprotocol/skills`: `skills/list`, `skills/get`
  with every file's URI, size and digest) as well as every file and `_manifest` as
  resources. `reload=True`: it scans the folders again on each request, as a server being
  edited does (so a file changed on disk changes its manifest too).
- `--extension-only`: the same provider with its `_manifest` resources withheld, so a
  skill's manifest comes from `skills/get` alone (what 4.3 leaves once the 4.1 shape is gone).

`--tamper NAME/PATH` makes the server serve that file with a line more than its manifest
says (a server whose files changed under it, or a file changed on the way): the 4.1
provider by appending to the file after its scan, 4.2's by adding the line as it serves the
file's bytes.

The `tests/peers/skills/` folder is the one the tests copy into a temporary ROOT.
"""

import argparse
from pathlib import Path

from fastmcp import FastMCP

TAMPERED = b"tampered after the manifest was made\n"

parser = argparse.ArgumentParser()
parser.add_argument("root")
parser.add_argument("--supporting", choices=["template", "resources"], default="template")
parser.add_argument("--tamper", default=None)
current = parser.add_mutually_exclusive_group()
current.add_argument("--extension", action="store_true")
current.add_argument("--extension-only", action="store_true")
args = parser.parse_args()

mcp = FastMCP("skills-peer")
if args.extension or args.extension_only:
    from fastmcp.skills import provider as current_provider

    class Provider(current_provider.SkillsDirectoryProvider):
        async def read_file(self, resource):
            content = await super().read_file(resource)
            if f"{resource.skill_path}/{resource.file_path}" == args.tamper:
                content += TAMPERED
            return content

        async def _list_resources(self):
            listed = await super()._list_resources()
            if args.extension_only:
                listed = [r for r in listed if not str(r.uri).endswith("/_manifest")]
            return listed

        async def _get_resource(self, uri, version=None):
            if args.extension_only and str(uri).endswith("/_manifest"):
                return None
            return await super()._get_resource(uri, version)

    mcp.add_provider(Provider(args.root, reload=True))
else:
    from fastmcp.server.providers.skills import SkillsDirectoryProvider

    mcp.add_provider(SkillsDirectoryProvider(roots=args.root, supporting_files=args.supporting))
    if args.tamper:
        with open(Path(args.root) / args.tamper, "ab") as f:
            f.write(TAMPERED)

if __name__ == "__main__":
    mcp.run(show_banner=False)
