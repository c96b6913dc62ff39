"""Builds the extension qkov._qkov with CMake (python/CMakeLists.txt) for the interpreter running
pip, and packages it with python/qkov. Only the module's target is configured and built: no
proofs, tests, tool or examples. CMAKE_BUILD_PARALLEL_LEVEL sets the compile jobs."""
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(self.build_temp).resolve() / "cmake"
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                               f"-DPython_EXECUTABLE={sys.executable}", "-DQKOV_PYTHON=ON", "-DQKOV_BUILD_PROOFS=OFF",
                               "-DQKOV_BUILD_TESTS=OFF", "-DQKOV_COMPILE_FAIL_TESTS=OFF", "-DQKOV_BUILD_APPS=OFF",
                               "-DQKOV_BUILD_EXAMPLES=OFF"])
        # Without the module's packages the configuration names what is missing and defines no
        # target; the build step then fails on the target's name, after that message.
        subprocess.check_call(["cmake", "--build", str(build), "--target", "qkov_python"])
        built = sorted((build / "python" / "qkov").glob("_qkov*.so"))
        if not built:
            raise RuntimeError(f"qkov: CMake built no extension in {build / 'python' / 'qkov'}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built[0]), str(target))


setup(packages=["qkov"], package_dir={"qkov": "python/qkov"}, ext_modules=[Extension("qkov._qkov", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
