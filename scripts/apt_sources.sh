# Sourced by the set-up scripts (jdk11.sh, make_base_image.sh): where this machine's apt gets Debian
# from, read from its own sources (one-line `deb` entries in *.list files and deb822 stanzas in
# *.sources files), so that set-up fetches from the mirror the machine was set up with, not from a
# host named here. When the sources name none, the public archive is used and stderr says so.

DEBIAN_DEFAULT_ARCHIVE="http://deb.debian.org/debian"
DEBIAN_DEFAULT_SECURITY="http://deb.debian.org/debian-security"

# apt_source_uri SUITE [APT_DIR]: the URI of the first enabled `deb` source that serves SUITE in
# APT_DIR (default /etc/apt), or nothing.
apt_source_uri() {
  local suite="$1" dir="${2:-/etc/apt}" files=()
  [ -f "$dir/sources.list" ] && files+=("$dir/sources.list")
  for f in "$dir"/sources.list.d/*.list "$dir"/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  awk -v want="$suite" '
    function stanza() {
      if (!done && enabled && (" " types " ") ~ / deb / && (" " suites " ") ~ (" " want " ")) {
        split(uris, u, " ")
        if (u[1] != "") { print u[1]; done = 1 }
      }
      types = ""; uris = ""; suites = ""; enabled = 1
    }
    BEGIN { enabled = 1 }
    done { exit }
    FNR == 1 && NR > 1 { stanza() }
    /^[ \t]*#/ { next }
    { sub(/[ \t]#.*/, "") }
    FILENAME ~ /\.sources$/ {
      if ($0 ~ /^[ \t]*$/) { stanza(); next }
      key = tolower($1); value = $0; sub(/^[^:]*:[ \t]*/, "", value)
      if (key == "types:") types = value
      else if (key == "uris:") uris = value
      else if (key == "suites:") suites = value
      else if (key == "enabled:") enabled = (tolower(value) != "no")
      next
    }
    $1 == "deb" {
      line = $0; sub(/\[[^]]*\]/, "", line); split(line, f, " ")
      if (f[3] == want) { print f[2]; done = 1 }
    }
    END { if (!done) stanza() }
  ' "${files[@]}"
}

# _debian_uri SUITE_SUFFIX DEFAULT [APT_DIR]: the URI this Debian machine's apt uses for its own
# release's suite + SUITE_SUFFIX (`` or `-security`), else DEFAULT with a line on stderr saying so.
_debian_uri() {
  local suffix="$1" default="$2" dir="${3:-/etc/apt}" codename="" uri=""
  if grep -qs '^ID=debian' /etc/os-release; then
    codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release | tr -d '"')
  fi
  [ -n "$codename" ] && uri=$(apt_source_uri "$codename$suffix" "$dir")
  if [ -z "$uri" ]; then
    echo "${0##*/}: this machine's apt sources name no Debian ${codename:-(not a Debian system)}$suffix" \
         "source; using $default" >&2
    uri="$default"
  fi
  echo "${uri%/}"
}

# debian_archive [APT_DIR]: the Debian archive this machine uses (its release's suite comes from it).
debian_archive() { _debian_uri "" "$DEBIAN_DEFAULT_ARCHIVE" "${1:-/etc/apt}"; }

# debian_security [APT_DIR]: the Debian security archive this machine uses.
debian_security() { _debian_uri "-security" "$DEBIAN_DEFAULT_SECURITY" "${1:-/etc/apt}"; }
