# The LibreOffice Calc extension's UNO component: a Job that Calc's menu entries call
# (Addons.xcu: service:org.fortap.calc.Job?suggest|audit|recover). It runs inside soffice's own
# Python, puts the Python folders of the venv that built the .oxt first on sys.path
# (fortap_paths.json, written by `fortap addin oxt`) and hands the document to
# fortap.addin.calc_commands, which does the work in-process: no server.
import json
import os
import sys

import unohelper
from com.sun.star.task import XJobExecutor

IMPLEMENTATION = "org.fortap.calc.Job"
HERE = os.path.dirname(os.path.abspath(__file__))


def _paths():
    with open(os.path.join(HERE, "fortap_paths.json"), encoding="utf-8") as f:
        for path in reversed(json.load(f)["sys_path"]):
            if path not in sys.path:
                sys.path.insert(0, path)


class FortapJob(unohelper.Base, XJobExecutor):
    def __init__(self, ctx):
        self.ctx = ctx

    def trigger(self, command):
        _paths()
        from fortap.addin.calc_commands import run

        run(self.ctx, command)


g_ImplementationHelper = unohelper.ImplementationHelper()
g_ImplementationHelper.addImplementation(FortapJob, IMPLEMENTATION, ("com.sun.star.task.Job",))
