#!/usr/bin/env bash
# Installs qkov's build and test dependencies from Debian 12's packages, only those missing.
set -euo pipefail

packages=(
  g++ cmake make ninja-build              # make: projects configured without a preset (bench/build.sh, setup.py, the find_package consumer test)
  libboost1.81-dev libboost-test1.81-dev   # Multiprecision and Test; 1.74's constexpr cpp_int is not enough
  libxtensor-dev libxtensor-blas-dev libopenblas-dev liblapack-dev
  nlohmann-json3-dev libcli11-dev libmpfr-dev libpng-dev
  python3-numpy                            # the reference of bench/numeric (numpy on OpenBLAS)
  python3-jsonschema                       # the tests check every JSON document against docs/schemas/
  pybind11-dev python3-dev                 # the Python module (python/): pybind11 and the interpreter's headers
  python3-pytest python3-pandas            # its tests (tests/python), and .heads as a DataFrame
  jupyter-nbconvert python3-ipykernel python3-matplotlib  # the example notebook, executed by the tests
  libfreetype-dev fonts-dejavu-core        # figure text: FreeType and the DejaVu Sans font
  clang-16 libclang-rt-16-dev              # the second constant evaluator, and libFuzzer + sanitizers
  pkg-config
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
