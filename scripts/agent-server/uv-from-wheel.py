# uv and uvx at /usr/bin, taken from the uv wheel in /wheels: what the reference image has there (a
# generated Dockerfile ends with `rm /usr/bin/uv /usr/bin/uvx`). Run by each recipe's base-build.sh.
import glob
import os
import zipfile

wheel = zipfile.ZipFile(glob.glob("/wheels/uv-*.whl")[0])
for name in wheel.namelist():
    if ".data/scripts/" in name:
        target = "/usr/bin/" + os.path.basename(name)
        with open(target, "wb") as out:
            out.write(wheel.read(name))
        os.chmod(target, 0o755)
