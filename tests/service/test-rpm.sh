#!/bin/bash
# make rpm-check: rdmad.spec, built and checked against the Debian packages.
#   1. tools/build-rpm: the source RPM and the three binary RPMs, by rpmbuild
#      in a temporary topdir from a `git archive` of the checkout.
#   2. rpmlint on the spec and on every RPM, with Fedora's settings
#      (rdmad.rpmlint.toml) and the filters of rdmad.rpmlintrc, each with its
#      reason: no error and no warning left.
#   3. The payloads (rpm -qlvp) against the Debian packages' (dpkg -c), package
#      by package: the same files, modes and contents, but for the
#      differences named below (where each distribution puts a thing).
#      The .debs: RDMAD_DEBS=DIR (the ones make check-systemd built from the
#      same tree), else dpkg-buildpackage on the same archive.
#   4. The scriptlets: sh -n on each; then those of an installation and of a
#      removal run against a root holding the RPMs' files, with
#      systemd-sysusers and systemctl told --root=: the users exist,
#      rdmad.service is enabled (the alias D-Bus activation starts) and
#      nothing else, as on Debian; removal leaves no unit enabled.
# Installs nothing on this machine; needs tools/install-deps rpm.
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in rpmbuild rpmlint rpm2cpio cpio dpkg-deb systemctl systemd-sysusers; do
        command -v "$t" >/dev/null || fail "no $t here (tools/install-deps rpm installs what make rpm-check needs)"
done
tmp=$(mktemp -d /tmp/rdmad-rpm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# 1. Build.
echo "rpmbuild -ba rdmad.spec from a git archive (log: rpmbuild.log)"
"$src/tools/build-rpm" "$tmp/top" >"$tmp/wrote"
declare -A rpm_of
for p in rdmad rdmad-exporter python3-rdmad; do
        rpm_of[$p]=$(ls "$tmp"/top/RPMS/*/"$p"-[0-9]*.rpm 2>/dev/null) || fail "no $p RPM: $(cat "$tmp/wrote")"
done
rpm_rdmad=${rpm_of[rdmad]} rpm_rdmad_exporter=${rpm_of[rdmad-exporter]} rpm_python_rdmad=${rpm_of[python3-rdmad]}
srpm=$(ls "$tmp"/top/SRPMS/rdmad-*.src.rpm) || fail "no source RPM"
[ "$(rpm -qp --qf '%{ARCH}' "$rpm_python_rdmad")" = noarch ] || fail "python3-rdmad is not noarch"
echo "built: $(cd "$tmp/top" && ls SRPMS/*.rpm RPMS/*/*.rpm | tr '\n' ' ')"

# 2. rpmlint, in the spec's directory (the spec reads its sysusers files there).
lint_log=$tmp/rpmlint.log
(cd "$tmp/top/SPECS" && cp "$tmp"/top/SOURCES/*-sysusers.conf . &&
        rpmlint -c "$src/rdmad.rpmlint.toml" -r "$src/rdmad.rpmlintrc" rdmad.spec "$srpm" \
                "$rpm_rdmad" "$rpm_rdmad_exporter" "$rpm_python_rdmad") >"$lint_log" 2>&1 || true
summary=$(grep -E '^ *[0-9]+ packages and [0-9]+ specfiles checked' "$lint_log") ||
        { cat "$lint_log" >&2; fail "rpmlint did not run to its summary"; }
echo "rpmlint:$summary"
case $summary in
*" 4 packages and 1 specfiles checked; 0 errors, 0 warnings,"*) ;;
*) cat "$lint_log" >&2; fail "rpmlint reports findings that rdmad.rpmlintrc does not name" ;;
esac
# What two of the rpmlintrc's filters stand for, checked here: the
# binaries carry no debug information (brp-strip -g; only the symbol table
# is left without Fedora's find-debuginfo), and each has its man page in
# its package (rpmlint 2.4 looks for man pages by section, not by name).
mkdir "$tmp/rpmroot"
for r in "$rpm_rdmad" "$rpm_rdmad_exporter" "$rpm_python_rdmad"; do
        rpm2cpio "$r" | (cd "$tmp/rpmroot" && cpio -idm --quiet)
done
for b in usr/sbin/rdmad usr/bin/rdmactl usr/bin/rdmad-exporter; do
        ! readelf -S "$tmp/rpmroot/$b" | grep '\.debug_info' >/dev/null || fail "/$b carries debug information"
done
for pair in "$rpm_rdmad rdmad.8" "$rpm_rdmad rdmactl.1" "$rpm_rdmad_exporter rdmad-exporter.8"; do
        set -- $pair
        rpm -qlp "$1" | grep "/man[0-9]/$2\.gz$" >/dev/null || fail "$(basename "$1") has no $2.gz"
done

# 3. The Debian packages, from the same archive unless given.
debs=${RDMAD_DEBS:-}
if [ -z "$debs" ]; then
        debs=$tmp/debs
        mkdir -p "$debs" "$tmp/deb-src"
        tar -xzf "$tmp"/top/SOURCES/rdmad-*.tar.gz -C "$tmp/deb-src" --strip-components=1
        echo "dpkg-buildpackage -us -uc -b on the same archive (RDMAD_DEBS=DIR takes built ones)"
        (cd "$tmp/deb-src" && PATH=/usr/sbin:/usr/bin:/sbin:/bin nice dpkg-buildpackage -us -uc -b) >"$tmp/deb.log" 2>&1 ||
                { tail -30 "$tmp/deb.log" >&2; fail "dpkg-buildpackage"; }
        mv "$tmp"/*.deb "$debs/"
else
        echo "the Debian packages: $debs (RDMAD_DEBS)"
fi
# Files (not directories) as "mode path", where each distribution puts them
# mapped onto one name: Debian 12's units in /lib/systemd/system (debian/rules)
# and the two python3 site directories.
normalize() {
        sed -E -e 's|^([-l][rwxsStT-]{9}) /lib/systemd/system/|\1 /usr/lib/systemd/system/|' \
                -e 's|^([-l][rwxsStT-]{9}) /usr/lib/python3/dist-packages/|\1 SITE/|' \
                -e 's|^([-l][rwxsStT-]{9}) /usr/lib/python3\.[0-9]+/site-packages/|\1 SITE/|' | sort
}
# What only one of them has, and why (anything else is a difference):
#   Debian: changelog.gz and copyright in each doc directory (Debian policy;
#   rpm keeps the changelog in the header), dist-info/RECORD (Fedora's
#   %pyproject_install drops it: rpm -V checks the files).
#   RPM: the preset that enables rdmad.service as debian/rules'
#   dh_installsystemd does, dist-info/INSTALLER ("rpm"), and the
#   /usr/lib/.build-id links rpm makes for every ELF file.
debian_only='^-rw-r--r-- /usr/share/doc/[^/]+/(changelog\.gz|copyright)$|^-rw-r--r-- SITE/rdmad-[^/]+\.dist-info/RECORD$'
rpm_only='^-rw-r--r-- /usr/lib/systemd/system-preset/85-rdmad\.preset$|^-rw-r--r-- SITE/rdmad-[^/]+\.dist-info/INSTALLER$|^l[rwx-]{9} /usr/lib/\.build-id/'
mkdir "$tmp/debroot"
total=0
for p in rdmad rdmad-exporter python3-rdmad; do
        deb=$(ls "$debs/${p}"_[0-9]*.deb 2>/dev/null) || fail "no ${p}_*.deb in $debs"
        dpkg-deb -x "$deb" "$tmp/debroot"
        dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { p = $6; sub(/^\./, "", p); print $1, p }' | normalize >"$tmp/$p.deb.list"
        rpm -qlvp "${rpm_of[$p]}" | awk '$1 !~ /^d/ { print $1, $9 }' | normalize >"$tmp/$p.rpm.list"
        grep -Ev "$debian_only" "$tmp/$p.deb.list" >"$tmp/$p.deb.cmp" || true
        grep -Ev "$rpm_only" "$tmp/$p.rpm.list" >"$tmp/$p.rpm.cmp" || true
        if ! diff -u --label "$p.deb (dpkg -c)" --label "$p.rpm (rpm -qlvp)" "$tmp/$p.deb.cmp" "$tmp/$p.rpm.cmp" >"$tmp/$p.diff"; then
                cat "$tmp/$p.diff" >&2
                fail "$p: the RPM's files are not the Debian package's"
        fi
        n=$(wc -l <"$tmp/$p.deb.cmp")
        total=$((total + n))
        echo "$p: the same $n files in both, modes included (Debian only: $(($(wc -l <"$tmp/$p.deb.list") - n)), RPM only: $(($(wc -l <"$tmp/$p.rpm.list") - n)), as named)"
done
# Contents: every file but the ELF binaries (each distribution's build flags
# and stripping) byte for byte.
same=0
while read -r mode path; do
        case $path in SITE/*) continue ;; esac # below, with each site directory
        if [ "$(head -c 4 "$tmp/rpmroot$path" | od -An -c | tr -d ' ')" = 177ELF ]; then continue; fi
        debpath=$path
        case $path in /usr/lib/systemd/system/*) [ -e "$tmp/debroot$path" ] || debpath=/lib/systemd/system/${path##*/} ;; esac
        cmp -s "$tmp/rpmroot$path" "$tmp/debroot$debpath" || fail "$path differs between the RPM and the Debian package"
        same=$((same + 1))
done < <(cat "$tmp"/*.rpm.cmp)
site_rpm=$(cd "$tmp/rpmroot" && echo usr/lib/python3.*/site-packages)
for f in $(cd "$tmp/rpmroot/$site_rpm" && find . -type f ! -name INSTALLER); do
        cmp -s "$tmp/rpmroot/$site_rpm/$f" "$tmp/debroot/usr/lib/python3/dist-packages/$f" || fail "python: $f differs"
        same=$((same + 1))
done
echo "payloads: $total files in both, $same of them (all but the ELF binaries) identical byte for byte"

# 4. Scriptlets.
for r in "$rpm_rdmad" "$rpm_rdmad_exporter" "$rpm_python_rdmad"; do
        for tag in PREIN POSTIN PREUN POSTUN; do
                body=$(rpm -qp --qf "%{$tag}" "$r")
                [ "$body" = "(none)" ] && continue
                printf '%s\n' "$body" >"$tmp/script"
                sh -n "$tmp/script" || fail "$(basename "$r") $tag: not valid sh: $body"
        done
done
root=$tmp/rpmroot
mkdir -p "$root/etc" "$tmp/bin"
touch "$root/etc/passwd" "$root/etc/group" "$root/etc/shadow" "$root/etc/gshadow"
printf '#!/bin/sh\nexec /usr/bin/systemctl --root=%s "$@"\n' "$root" >"$tmp/bin/systemctl"
printf '#!/bin/sh\nexec /usr/bin/systemd-sysusers --root=%s "$@"\n' "$root" >"$tmp/bin/systemd-sysusers"
chmod +x "$tmp/bin/systemctl" "$tmp/bin/systemd-sysusers"
scriptlet() { # RPM TAG ARG: the scriptlet as rpm runs it ($1 = ARG), against $root
        local body
        body=$(rpm -qp --qf "%{$2}" "$1")
        [ "$body" = "(none)" ] && return 0
        PATH=$tmp/bin:$PATH sh -c "$body" "$(basename "$1")" "$3" >"$tmp/scriptlet.log" 2>&1 ||
                { cat "$tmp/scriptlet.log" >&2; fail "$(basename "$1") $2 with $3 failed"; }
}
enabled() { (cd "$root/etc/systemd/system" 2>/dev/null && find . -type l -printf '%P -> %l\n' | sort) || true; }
# An installation: %pre, the files (already in $root), %post, as rpm does.
for r in "$rpm_rdmad" "$rpm_rdmad_exporter"; do scriptlet "$r" PREIN 1; done
for r in "$rpm_rdmad" "$rpm_rdmad_exporter"; do scriptlet "$r" POSTIN 1; done
grep -q '^rdmad:' "$root/etc/passwd" || fail "%pre created no user rdmad"
grep -q '^rdmad-exporter:' "$root/etc/passwd" || fail "%pre created no user rdmad-exporter"
grep -q '^rdmad:' "$root/etc/group" || fail "%pre created no group rdmad (90-rdmad.rules gives it sriov_numvfs)"
now=$(enabled)
[ "$now" = "dbus-org.rdmad1.service -> /usr/lib/systemd/system/rdmad.service" ] ||
        fail "after installation, enabled: '${now}', where Debian enables rdmad.service alone"
echo "scriptlets: installation makes the users rdmad and rdmad-exporter, enables rdmad.service alone ($now)"
# A removal: %preun, %postun with 0.
for r in "$rpm_rdmad_exporter" "$rpm_rdmad"; do scriptlet "$r" PREUN 0; done
for r in "$rpm_rdmad_exporter" "$rpm_rdmad"; do scriptlet "$r" POSTUN 0; done
[ -z "$(enabled)" ] || fail "after removal, still enabled: $(enabled)"
echo "scriptlets: removal leaves no unit enabled"
echo "1 passed, 0 failed"
