# SPDX-License-Identifier: MIT
# Sourced by scripts/kernel and scripts/debug-kernel: a private apt list of
# Debian's suites (bullseye, bookworm and its updates, security and
# backports, trixie and its backports, sid) under $cache/apt, used to look up and download
# packages without installing them and without touching the host's apt
# configuration.  Needs $cache and a log function.
# shellcheck shell=sh
mirror=${KSNAP_DEBIAN_MIRROR:-http://deb.debian.org}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# apt_use [ARCH]: the list of ARCH's packages from here on, in its own
# $cache/apt-ARCH (the kernels ksnap is cross-built for); without ARCH the
# host's, in $cache/apt (the default).
apt_use() {
	if [ -n "${1:-}" ]; then
		apt_dir=$cache/apt-$1
		set -- "-o APT::Architecture=$1 -o APT::Architectures=$1"
	else
		apt_dir=$cache/apt
	fi
	# Check-Valid-Until off: a mirror that is a snapshot (snapshot.debian.org,
	# a registry's copy) serves sid's and the security suite's Release files
	# past their week of validity, and apt would then refuse the whole
	# update.  The signatures are still checked, and every kernel is taken
	# at the exact version scripts/kernel-pins names, so an old Release
	# cannot bring an older package.
	APT_OPTS="-o Acquire::Check-Valid-Until=false
 -o Dir::Etc::SourceList=$apt_dir/sources.list
 -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists=$apt_dir/lists
 -o Dir::Cache=$apt_dir/cache -o Dir::Cache::Archives=$apt_dir/archives
 -o Debug::NoLocking=1 -o APT::Sandbox::User=root -q${1:+ $1}"
}
apt_use

# make check builds the debug kernels in the background while it fetches
# the others: one update at a time (fd 8 holds the lock until it returns).
apt_update() {
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" \
		"$apt_dir/cache"
	exec 8>"$apt_dir/update.lock"
	flock 8
	apt_update_locked
	set -- $?
	flock -u 8
	exec 8>&-
	return "$1"
}

apt_update_locked() {
	{
		for s in bullseye bookworm bookworm-updates bookworm-backports \
			trixie trixie-backports sid; do
			echo "deb [signed-by=$keyring] $mirror/debian $s main"
		done
		echo "deb [signed-by=$keyring] $mirror/debian-security bookworm-security main"
	} > "$apt_dir/sources.list"
	# Lists read within the last hour, of these same suites, are recent
	# enough (the stamp holds the sources list they were read from).
	if [ -n "$(find "$apt_dir/lists/.ksnap-stamp" -mmin -60 2>/dev/null)" ] &&
		cmp -s "$apt_dir/sources.list" "$apt_dir/lists/.ksnap-stamp"; then
		return 0
	fi
	log "reading Debian's package lists (bullseye, bookworm, backports, trixie, sid)"
	# shellcheck disable=SC2086
	apt-get $APT_OPTS update </dev/null >"$apt_dir/update.log" 2>&1 ||
		{ tail -5 "$apt_dir/update.log" >&2; return 1; }
	cp "$apt_dir/sources.list" "$apt_dir/lists/.ksnap-stamp"
}

# The newest version of package PKG in suites SUITES ("a b c"): prints
# "version" or nothing.
apt_newest() { # PKG SUITES
	# shellcheck disable=SC2086
	apt-cache $APT_OPTS madison "$1" 2>/dev/null | awk -F'|' -v suites=" $2 " '
		{ v = $2; gsub(/ /, "", v); s = $3; sub(/^ *[^ ]* /, "", s); sub(/\/.*/, "", s); sub(/ .*/, "", s) }
		index(suites, " " s " ") { print v }' |
		sort -V | tail -1
}

# Whether the lists hold package PKG at exactly VERSION.  apt-cache show
# exits 0 for a version it does not know (it only warns), so the answer is
# its Version line.
apt_has() { # PKG VERSION
	# shellcheck disable=SC2086
	apt-cache $APT_OPTS show "$1=$2" 2>/dev/null | grep -qx "Version: $2"
}

# The package a metapackage version depends on whose name starts with
# PREFIX (linux-image-, linux-source-...).
apt_dep_of() { # METAPKG VERSION PREFIX
	# shellcheck disable=SC2086
	apt-cache $APT_OPTS show "$1=$2" 2>/dev/null | sed -n 's/^Depends: //p' |
		head -1 | tr ',' '\n' | sed -n "s/^ *\($3[^ |]*\).*/\1/p" | head -1
}

# The kernel image package a metapackage version depends on.
apt_image_of() { # METAPKG VERSION
	# shellcheck disable=SC2086
	apt-cache $APT_OPTS show "$1=$2" 2>/dev/null |
		sed -n 's/^Depends: .*\(linux-image-[^ ,]*\).*/\1/p' | head -1
}

# The linux-headers-* and linux-kbuild-* packages PKG=VERSION depends on.
apt_header_deps() { # PKG VERSION
	# shellcheck disable=SC2086
	apt-cache $APT_OPTS show "$1=$2" 2>/dev/null |
		sed -n 's/^Depends: //p' | head -1 | tr ',' '\n' |
		sed -n 's/^ *\(linux-\(headers\|kbuild\)-[^ |]*\).*/\1/p'
}

apt_download() { # DIR PKG=VERSION...
	d=$1
	shift
	mkdir -p "$d"
	# shellcheck disable=SC2086
	(cd "$d" && apt-get $APT_OPTS download "$@" </dev/null >download.log 2>&1) ||
		{ tail -5 "$d/download.log" >&2; return 1; }
}


# Those of PKGS ("a b c") that package PKG=VERSION depends on.
apt_deps_of() { # PKG VERSION PKGS
	# shellcheck disable=SC2086
	apt-cache $APT_OPTS show "$1=$2" 2>/dev/null | sed -n 's/^Depends: //p' |
		head -1 | tr ',' '\n' | sed 's/^ *//; s/[ |].*//' |
		while read -r d; do
			case " $3 " in *" $d "*) echo "$d" ;; esac
		done
}
