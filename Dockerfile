# tilepuzzles in a container: Debian bookworm and Debian's packages only, installed by the same
# script as on a Debian machine (scripts/install-deps.sh), and the checker built as
# scripts/check.sh builds it (scripts/configure.sh, then the target tilepuzzles).
#
#   docker build -t tilepuzzles .
#   docker run --rm -it tilepuzzles ./build/tilepuzzles check 1
#
# Your puzzles are in the image's copy; to edit them on the host, mount the tree over it and let
# check.sh rebuild: docker run --rm -it -v "$PWD":/tilepuzzles tilepuzzles bash scripts/check.sh
# .devcontainer/devcontainer.json uses the first stage (the tools, no build) for an editor.
#
# The sandbox: bubblewrap needs user namespaces, which Docker's default seccomp profile refuses,
# so in a plain `docker run` check says there is no sandbox and checks without it (the container
# is then the boundary; docs/instructors.md, "The sandbox"). `./build/tilepuzzles sandbox` says
# which holds.

# The tools: what install-deps.sh installs, the same on every machine.
FROM debian:bookworm AS tools
WORKDIR /tilepuzzles
COPY scripts/install-deps.sh scripts/install-deps.sh
# As root: install-deps.sh runs apt-get itself (update, then the missing packages). git for the
# learner's own history; the lists are dropped afterwards, as Debian's images do.
RUN bash scripts/install-deps.sh \
 && apt-get update -qq && apt-get install -y -qq --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/*

# The checker, built.
FROM tools AS checker
COPY . .
RUN bash scripts/configure.sh && cmake --build build -j"$(nproc)" --target tilepuzzles
CMD ["bash"]
