#!/usr/bin/env bash
# Unpacks an arm64 Java 17 runtime (Debian's openjdk-17-jre-headless:arm64 and the libraries it
# links) into DIR, for the native module's tests on aarch64 under qemu-user (-P aarch64-qemu;
# docs/native-bridge.md). Nothing is installed: the .debs are downloaded (apt-get download) and
# unpacked (dpkg-deb -x), so the machine's own JDK and libraries stay as they are. apt needs the
# arm64 architecture for that; as root this script adds it (dpkg --add-architecture arm64).
set -euo pipefail
dir=${1:?usage: sysroot.sh DIR}
packages=(openjdk-17-jre-headless:arm64 libc6:arm64 libgcc-s1:arm64 libstdc++6:arm64 zlib1g:arm64)

if ! apt-cache show libc6:arm64 >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "sysroot.sh: apt knows no arm64 packages; as root: dpkg --add-architecture arm64 && apt-get update" >&2
    exit 1
  fi
  dpkg --add-architecture arm64
  apt-get update -q
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$dir.partial"' EXIT
chmod 755 "$tmp" # apt's _apt user downloads into it
(cd "$tmp" && apt-get download -q "${packages[@]}")
rm -rf "$dir.partial"
mkdir -p "$dir.partial"
for deb in "$tmp"/*.deb; do
  dpkg-deb -x "$deb" "$dir.partial"
done
# The JRE's configuration (jvm.cfg, java.security, ...) is symlinked into /etc: point the links
# at the unpacked /etc instead of the machine's. (cacerts, made by a maintainer script, stays
# missing: the tests use no TLS.)
find "$dir.partial" -type l -lname '/etc/*' | while read -r link; do
  target="$dir.partial$(readlink "$link")"
  if [ -e "$target" ]; then
    ln -sfn "$(realpath --relative-to="$(dirname "$link")" "$target")" "$link"
  fi
done
java="$dir.partial/usr/lib/jvm/java-17-openjdk-arm64/bin/java"
[ -x "$java" ] || { echo "sysroot.sh: no $java after unpacking" >&2; exit 1; }
rm -rf "$dir"
mv "$dir.partial" "$dir"
echo "sysroot.sh: arm64 JRE in $dir/usr/lib/jvm/java-17-openjdk-arm64"
