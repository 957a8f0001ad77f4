"""Drives a real headless LibreOffice for `test_calc_extension.py`; run by Debian's python3,
which has `uno` (python3-uno), never imported by pytest.

    python3 calc_driver.py CASES.json

CASES.json: {"oxt", "profile", "cases": [{"book", "sheet", "cell", "command", "read": [A1...],
"out"}]}. Installs the .oxt into a fresh profile with unopkg, starts soffice, and for each case
opens the workbook, selects the cell, dispatches the Tools menu entry's URL
(service:org.fortap.calc.Job?COMMAND: the installed extension's Job runs inside soffice), reads the cells back as
LibreOffice computed them, saves the document as .xlsx to `out`, then undoes once and reads the
command's cell again. Prints one JSON line of results.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import uno
from com.sun.star.beans import PropertyValue

PIPE = f"fortap_calc_test_{os.getpid()}"  # its own: a soffice left by another run never answers


def prop(name, value):
    return PropertyValue(Name=name, Value=value)


def connect(deadline):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local)
    while True:
        try:
            ctx = resolver.resolve(f"uno:pipe,name={PIPE};urp;StarOffice.ComponentContext")
            desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
            desktop.getComponents()  # a first start restarts once: this fails until it is up
            return ctx, desktop
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def read(sheet, a1):
    cell = sheet.getCellRangeByName(a1)
    return {"formula": cell.getFormula(), "value": cell.getValue(), "string": cell.getString()}


def run_case(ctx, desktop, case):
    url = uno.systemPathToFileUrl(case["book"])
    doc = desktop.loadComponentFromURL(url, "_blank", 0, (prop("Hidden", True),))
    sheet = doc.getSheets().getByName(case["sheet"])
    controller = doc.getCurrentController()
    controller.setActiveSheet(sheet)
    controller.select(sheet.getCellRangeByName(case["cell"]))
    helper = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
    helper.executeDispatch(controller.getFrame(), f"service:org.fortap.calc.Job?{case['command']}",
                           "", 0, ())  # the Tools menu entry's URL
    out = {"cells": {a1: read(sheet, a1) for a1 in case["read"]},
           "comments": sheet.getAnnotations().getCount(),
           "undo_title": doc.getUndoManager().getCurrentUndoActionTitle()}
    doc.storeToURL(uno.systemPathToFileUrl(case["out"]),
                   (prop("FilterName", "Calc MS Excel 2007 XML"),))
    doc.getUndoManager().undo()
    out["after_undo"] = read(sheet, case["cell"])
    doc.close(True)
    return out


def install(oxt, profile):
    """`unopkg add` into a fresh profile, as a user installs it; returns soffice's -env option.
    unopkg refuses to run as root (CI's user) unless --shared, which would change the
    LibreOffice installation itself, so as root it runs as `nobody` on a profile folder that
    `nobody` owns, outside pytest's private tmp folder."""
    command = ["unopkg", "add", "--suppress-license"]
    if os.geteuid() == 0:
        base = Path(tempfile.mkdtemp(prefix="fortap-calc-"))
        profile = base / "profile"
        shutil.copy(oxt, base / "fortap.oxt")
        oxt = str(base / "fortap.oxt")
        for path in (base, Path(oxt)):
            shutil.chown(path, "nobody", "nogroup")
        os.chmod(base, 0o755)
        command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
    env = f"-env:UserInstallation={uno.systemPathToFileUrl(str(profile))}"
    subprocess.run([*command, env, oxt], check=True, timeout=120, capture_output=True,
                   env={**os.environ, "HOME": str(profile.parent)})
    return env, profile


def main():
    spec = json.loads(Path(sys.argv[1]).read_text())
    env, profile = install(spec["oxt"], Path(spec["profile"]))
    office = subprocess.Popen(["soffice", env, "--headless", "--norestore", "--nologo",
                               f"--accept=pipe,name={PIPE};urp;"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)  # soffice starts soffice.bin: end both
    try:
        ctx, desktop = connect(time.monotonic() + 60)
        results = [run_case(ctx, desktop, case) for case in spec["cases"]]
        print(json.dumps(results))
        with contextlib.suppress(Exception):  # the bridge closes as soffice exits
            desktop.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):  # killed below
            office.wait(15)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(office.pid, signal.SIGKILL)
        if os.geteuid() == 0:
            shutil.rmtree(profile.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
