#!/bin/sh
# Installs the xcsh executable for this machine from a GitHub release.
#
#   sh install.sh            # the copy attached to a release, downloaded from its page
#   sh scripts/install.sh    # from a clone: installs from the origin remote's releases
#
# It detects the OS and CPU, downloads xcsh-<os>-<arch> and SHA256SUMS from the
# release, refuses to install when the checksum does not match, and puts the
# binary at ~/.local/bin/xcsh. Settings, all optional:
#   XCSH_VERSION       a release version such as 0.2.0 (default: the latest release)
#   XCSH_INSTALL_DIR   where to install (default: ~/.local/bin)
#   XCSH_RELEASE_URL   the folder holding the release files, instead of GitHub
#   XCSH_REPO          the GitHub repository, owner/name (default: the one the release
#                      stamped below, else the clone's origin remote)
#   XCSH_TARGET        <os>-<arch> to install, instead of this machine's
set -eu

# The release workflow writes its repository here (a sed of this line) when it attaches
# this script to a release. Left empty in the source: a copy run from a clone asks git,
# and one that knows neither stops rather than guess an address.
DEFAULT_REPO=""

say() { printf '%s\n' "$*"; }
fail() {
  printf 'xcsh install: %s\n' "$*" >&2
  exit 1
}

detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
    *) fail "no xcsh build for the operating system '$os' (there are builds for Linux, macOS and Windows)" ;;
  esac
  case "$arch" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) fail "no xcsh build for the CPU '$arch' (there are builds for x64 and arm64)" ;;
  esac
  # A shell running under Rosetta reports x86_64 on an Apple silicon Mac; the native build is faster.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
    arch=arm64
  fi
  if [ "$os" = windows ] && [ "$arch" = arm64 ]; then
    fail "no xcsh build for Windows on arm64 yet"
  fi
  printf '%s-%s' "$os" "$arch"
}

download() { # url file
  if command -v curl >/dev/null 2>&1; then
    curl --fail --silent --show-error --location --output "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget --quiet --output-document="$2" "$1"
  else
    fail "neither curl nor wget is installed"
  fi
}

sha256_of() { # file
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else
    fail "no sha256sum, shasum or openssl to check the download with"
  fi
}

# owner/name of a GitHub remote URL: https://github.com/o/r(.git), git@github.com:o/r(.git)
# or ssh://git@github.com/o/r(.git). Prints nothing for any other address.
github_repo_of() { # url
  case "$1" in
    https://github.com/* | http://github.com/*) path=${1#*://github.com/} ;;
    https://*@github.com/*) # a user name or token before the host, which holds no "/"
      case "${1%%@github.com/*}" in https://*/*) return 0 ;; esac
      path=${1#*@github.com/}
      ;;
    git@github.com:*) path=${1#git@github.com:} ;;
    ssh://git@github.com/*) path=${1#ssh://git@github.com/} ;;
    *) return 0 ;;
  esac
  path=${path%/}
  path=${path%.git}
  if is_owner_name "$path"; then printf '%s' "$path"; fi
}

# GitHub owner and repository names are letters, digits, ".", "-" and "_".
is_owner_name() { # text
  case "$1" in
    */*/* | /* | */ | *[!A-Za-z0-9._/-]*) return 1 ;;
    ?*/?*) return 0 ;;
    *) return 1 ;;
  esac
}

# The clone this script sits in, when it was run from a file ($0 is "sh" when it
# arrives on stdin, and the folder then is the user's, not the script's).
script_clone_remote() {
  [ -f "$0" ] && grep -q '^DEFAULT_REPO=' "$0" 2>/dev/null || return 0
  command -v git >/dev/null 2>&1 || return 0
  git -C "$(dirname -- "$0")" remote get-url origin 2>/dev/null || true
}

# Sets repo (owner/name) and repo_source (why that one), or stops with what to do.
resolve_repo() {
  if [ -n "${XCSH_REPO:-}" ]; then
    is_owner_name "$XCSH_REPO" ||
      fail "XCSH_REPO must be owner/name, as in the repository's address after github.com/ (got '$XCSH_REPO')"
    repo=$XCSH_REPO repo_source="set by XCSH_REPO"
    return
  fi
  if [ -n "$DEFAULT_REPO" ]; then
    repo=$DEFAULT_REPO repo_source="the release this script came from"
    return
  fi
  remote=$(script_clone_remote)
  repo=$(github_repo_of "$remote")
  if [ -n "$repo" ]; then
    repo_source="the clone's origin remote"
    return
  fi
  how="set XCSH_REPO=owner/name (the repository that publishes xcsh releases), or download install.sh from that repository's release page, which knows its repository"
  if [ -n "$remote" ]; then
    case "$remote" in *://*@*) remote="${remote%%://*}://${remote#*@}" ;; esac # no password in the message
    fail "the clone's origin remote ($remote) is not a GitHub repository, so there is no release to install from; $how"
  fi
  fail "this copy of install.sh does not know which repository to install from (it was not downloaded from a release, and is not in a clone with a GitHub origin remote); $how"
}

release_url() {
  if [ -n "${XCSH_VERSION:-}" ]; then
    printf 'https://github.com/%s/releases/download/v%s' "$repo" "${XCSH_VERSION#v}"
  else
    printf 'https://github.com/%s/releases/latest/download' "$repo"
  fi
}

path_hint() { # dir
  case ":${PATH:-}:" in
    *":$1:"*) return ;;
  esac
  say ""
  say "$1 is not on your PATH. To run xcsh by name, add it:"
  case "${SHELL:-}" in
    */zsh) say "  echo 'export PATH=\"$1:\$PATH\"' >> ~/.zshrc && exec zsh" ;;
    */fish) say "  fish_add_path $1" ;;
    *) say "  echo 'export PATH=\"$1:\$PATH\"' >> ~/.bashrc && . ~/.bashrc" ;;
  esac
}

main() {
  target=${XCSH_TARGET:-$(detect_target)}
  suffix=""
  case "$target" in windows-*) suffix=".exe" ;; esac
  asset="xcsh-$target$suffix"
  if [ -n "${XCSH_RELEASE_URL:-}" ]; then
    base=${XCSH_RELEASE_URL%/}
  else
    resolve_repo
    say "Using the releases of $repo ($repo_source)"
    base=$(release_url)
  fi
  install_dir=${XCSH_INSTALL_DIR:-"$HOME/.local/bin"}

  tmp=$(mktemp -d 2>/dev/null || mktemp -d -t xcsh-install)
  trap 'rm -rf "$tmp"' EXIT
  trap 'exit 130' INT TERM

  say "Downloading $asset from $base"
  download "$base/$asset" "$tmp/$asset" || fail "could not download $base/$asset"
  download "$base/SHA256SUMS" "$tmp/SHA256SUMS" || fail "could not download $base/SHA256SUMS"

  # sha256sum lines are "<hex>  <name>", or "<hex> *<name>" for binary mode.
  expected=$(awk -v name="$asset" '$2 == name || $2 == "*" name { print $1; exit }' "$tmp/SHA256SUMS")
  [ -n "$expected" ] || fail "SHA256SUMS has no entry for $asset; refusing to install"
  actual=$(sha256_of "$tmp/$asset")
  if [ "$actual" != "$expected" ]; then
    fail "checksum mismatch for $asset (expected $expected, got $actual); refusing to install"
  fi

  mkdir -p "$install_dir" || fail "cannot create $install_dir"
  dest="$install_dir/xcsh$suffix"
  # Copy next to the destination, then rename: a running xcsh is never left half-written.
  cp "$tmp/$asset" "$dest.new.$$" || fail "cannot write to $install_dir"
  chmod 755 "$dest.new.$$"
  mv -f "$dest.new.$$" "$dest" || fail "cannot replace $dest"

  version=$("$dest" --version 2>/dev/null || true)
  say "Installed ${version:-xcsh} to $dest (checksum verified)"
  path_hint "$install_dir"
}

main "$@"
