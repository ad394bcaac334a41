"""Print the declared version floors of pyproject.toml as exact pins.

CI installs these in a second virtualenv and runs the tests there, so that a
floor the code no longer supports fails CI instead of a user's install. torch is
the exception: its floor (2.2) only exists as a multi-GB CUDA download here, so
the CPU build already on disk stands in for it.
"""

import re
import tomllib
from pathlib import Path

project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
extras = project["optional-dependencies"]
requirements = project["dependencies"] + extras["torch"] + extras["test"]
pins = {}
for requirement in requirements:
    match = re.fullmatch(
        r"([A-Za-z0-9_.\-]+(?:\[[A-Za-z0-9_,\-]+\])?)>=([0-9.]+)", requirement
    )
    if match is None:
        raise SystemExit(f"cannot pin {requirement!r}: declare floors as name>=X.Y")
    name, floor = match.groups()
    pins[name.split("[")[0].lower()] = f"{name}=={floor}.*"
pins["torch"] = "torch==2.13.0"
print("\n".join(sorted(pins.values())))
