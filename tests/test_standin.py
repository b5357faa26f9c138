"""The stand-in CUDA libraries and the test programs on their own, without
the tracer: a failure here is a stand-in (or program) bug, not a tracer bug."""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

PROGRAMS = {  # program: (args, expected status)
    "rt_apis": ([], 0), "drv_apis": ([], 0), "vmm": ([], 0), "static_rt": ([], 0),
    "dlopen_local": ([], 0), "dlsym_driver": (["--check-names"], 0),
    "entry_point": (["--check-names"], 0), "errors": ([], 0), "teardown": ([], 0),
    "inline_leak": ([], 0), "exit_status": ([], 7), "clean_exit": ([], 0),
}


def plain_case(name):
    def case():
        args, status = PROGRAMS[name]
        r = H.run_plain([H.program(name)] + args)
        H.expect(H.run_status(r) == status, "untraced: expected status %d\n%s" % (
            status, r.describe()))
    return case


for _name in PROGRAMS:
    globals()["case_" + _name] = plain_case(_name)


def case_exit_status_kill():
    r = H.run_plain([H.program("exit_status"), "kill"])
    H.expect_eq("status", H.run_status(r), 137)


def case_ctypes():
    r = H.run_plain([sys.executable, H.program_source("ctypes_leak.py")])
    H.expect(r.status == 0, "untraced ctypes_leak.py failed\n" + r.describe())


def case_interposed_names():
    """With another library exporting cuMemAlloc_v2 / cuGetProcAddress_v2
    preloaded, the stand-ins still hand out their own entry points."""
    env = {"LD_PRELOAD": H.program("libinterposer.so")}
    for name in ("dlsym_driver", "entry_point"):
        r = H.run_plain([H.program(name), "--check-names"], env)
        H.expect(r.status == 0, "interposed: %s\n%s" % (name, r.describe()))


def _tool(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise H.Skip("%s unavailable: %s" % (argv[0], e))


def case_cudart_imports():
    """The runtime reaches the driver only through dlopen + cuGetProcAddress:
    no cu* import, no DT_NEEDED on libcuda."""
    lib = os.path.join(H.standin_dir(), "libcudart.so.13")
    H.expect(os.path.isfile(lib), "missing " + lib)
    undef = _tool(["nm", "-D", "--undefined-only", lib])
    bad = [l.split()[-1] for l in undef.splitlines() if re.match(r"cu[A-Z]", l.split()[-1])]
    H.expect(not bad, "libcudart.so.13 imports driver symbols: %r" % bad)
    needed = [l for l in _tool(["readelf", "-d", lib]).splitlines() if "(NEEDED)" in l]
    H.expect(not any("libcuda.so" in l for l in needed),
             "libcudart.so.13 links libcuda:\n" + "\n".join(needed))
    defined = _tool(["nm", "-D", "--defined-only", lib])
    exported = [l.split()[-1] for l in defined.splitlines() if l.split()[-2] in ("T", "W")]
    others = [s for s in exported if not s.startswith("cuda") and not s.startswith("_")]
    H.expect(not others, "libcudart.so.13 exports non-cuda* functions: %r" % others)


def case_static_rt_exports():
    """The compiled-in runtime is not exported dynamically."""
    dyn = _tool(["nm", "-D", "--defined-only", H.program("static_rt")])
    H.expect("cudaMalloc" not in dyn, "static_rt exports cudaMalloc:\n" + dyn)


if __name__ == "__main__":
    H.main(globals())
