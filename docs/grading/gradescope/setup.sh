#!/usr/bin/env bash
# Gradescope's setup.sh (https://gradescope-autograders.readthedocs.io/en/latest/specs/): run once,
# as root, when Gradescope builds the autograder's image. The autograder's zip holds your course's
# copy of this repository, with setup.sh and run_autograder at its root (docs/instructors.md,
# "Gradescope"); Gradescope unpacks it into /autograder/source. README's own command installs
# what is missing, builds the checker and checks the reference solutions: an image whose
# solutions do not pass is not one to grade with, and its build fails here.
set -euo pipefail
cd "${AUTOGRADER_ROOT:-/autograder}/source"
bash scripts/check.sh --impl solution
