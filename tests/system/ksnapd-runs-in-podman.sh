# SPDX-License-Identifier: MIT
# ksnapd as a container (deploy/Containerfile), the way docs/containers.md
# runs it: the image is built under podman from a Debian base made by
# scripts/container-base (imported here: the guest has no network) and the
# ksnapd package, and run privileged with /sys/fs/cgroup read-only and a
# host directory for its stream.  It is started while the packaged
# service holds the device, as on a node that has both: it waits, says
# why on its log, and keeps running (no crash loop) until the service is
# stopped, disabled and masked with docs/containers.md's commands; then it
# attaches.  It starts a collection, writes while containers come and go
# beside it, and on `podman stop` ends the stream: ksnap-verify accepts it
# and every snapshot taken is a row or counted.  Then it runs without
# privilege, as the docs give it for podman (the device alone, no
# capability, a read-only root), writing a collection the host starts
# and stops.  The service comes back with the docs' commands.
TEST=ksnapd-runs-in-podman
. /guest/tests/syslib.sh
out=/out/podman-ksnapd
data=/var/lib/ksnap-podman
base=localhost/ksnapt-debian
image=localhost/ksnapd

tarball=$(ls /guest/files/container-base-*.tar 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
	fail "the harness gives the Debian base (container-base-*.tar)" "a tar in /guest/files" "$(ls /guest/files)"
	exit 1
fi
# The service holds the device, as on a node with both packages.
systemctl start ksnapd
poll 60 attached || fail "the service holds the device" "attached" "$(ksnap_stat reader)"
podman import "$tarball" $base > $out.import.log 2>&1
check_st "podman imports the Debian base ($(basename "$tarball"))" 0 $? $out.import.log
ctx=/tmp/ksnapd-image
rm -rf $ctx && mkdir -p $ctx
# The package installed here (the harness may give an upgrade's too).
deb=$(ls /guest/files/ksnapd_"$(dpkg-query -W -f '${Version}' ksnapd)"_*.deb 2>/dev/null | head -n 1)
cp "$deb" /guest/files/Containerfile $ctx/
t=$(date +%s)
podman build --network none --build-arg BASE=$base --build-arg APT_UPDATE=no \
	-f $ctx/Containerfile -t $image $ctx \
	> $out.build.log 2>&1
check_st "podman builds deploy/Containerfile on it with the ksnapd package" 0 $? $out.build.log
figure "podman-build-s" $(( $(date +%s) - t ))
check "the image's ksnapd is the package's" \
	"$(dpkg-deb -f "$deb" Version)" \
	"$(podman run --rm --network none --entrypoint dpkg-query $image -W -f '${Version}' ksnapd 2>&1)"

rm -rf $data && mkdir -p $data
podman run -d --name ksnapd --network none --privileged \
	-v /sys/fs/cgroup:/sys/fs/cgroup:ro -v $data:/var/lib/ksnap $image > $out.run.log 2>&1
check_st "podman runs the image as docs/containers.md does" 0 $? $out.run.log
said_busy() { podman logs ksnapd 2>&1 | grep -q 'another reader holds it.*ksnapd.service owns it'; }
if poll 120 said_busy; then
	pass "beside the service, the container's ksnapd says the device is busy and who owns it"
else
	fail "the container's ksnapd says within 120 s that ksnapd.service holds the device" \
		"'another reader holds it ... ksnapd.service owns it'" "$(podman logs ksnapd 2>&1 | tail -n 3)"
fi
# It waits instead of exiting (an exit at the first EBUSY is the crash
# loop a DaemonSet would show).
check "it keeps waiting: the container runs (no crash loop)" true \
	"$(podman inspect -f '{{.State.Running}}' ksnapd 2>&1)"
check "the service still holds the device" "$(ksnapd_pid)" \
	"$(attached "$(ksnapd_pid)" && ksnapd_pid || echo "not the service: $(ksnap_stat reader)")"
check "the container wrote no row meanwhile" 0 "$(cat $data/ksnap.tsv 2>/dev/null | wc -l)"
# docs/containers.md: the container's node stops, disables and masks the service.
systemctl disable --now ksnapd.service > $out.mask.log 2>&1 &&
	systemctl mask ksnapd.service >> $out.mask.log 2>&1
check_st "systemctl disable --now and mask ksnapd.service" 0 $? $out.mask.log
file_rows() { [ -s $data/ksnap.tsv ] && [ "$(wc -l < $data/ksnap.tsv)" -ge "$1" ]; }
if poll 120 file_rows 20; then
	pass "the container's ksnapd starts a collection and writes rows to the host directory"
else
	fail "the container's ksnapd writes rows within 120 s" "20 lines in $data/ksnap.tsv" \
		"$(wc -l < $data/ksnap.tsv 2>/dev/null); $(podman logs ksnapd 2>&1 | tail -n 5)"
fi
check "the module runs a collection" 1 "$(cat $KSNAP_SYS/enable)"

# Containers come and go beside it.
cp /bin/busybox /tmp/ksnapt-bb && mkdir -p /tmp/ksnapt-bb-root/bin &&
	mv /tmp/ksnapt-bb /tmp/ksnapt-bb-root/bin/busybox &&
	ln -sf busybox /tmp/ksnapt-bb-root/bin/sh && ln -sf busybox /tmp/ksnapt-bb-root/bin/true &&
	tar -C /tmp/ksnapt-bb-root -cf /tmp/ksnapt-bb.tar . &&
	podman import /tmp/ksnapt-bb.tar localhost/ksnapt-bb > /dev/null 2>&1
ran=0
for i in 1 2; do
	podman run --rm --network none localhost/ksnapt-bb true > /dev/null 2>&1 && ran=$((ran + 1))
done
check "two containers ran and went beside it" 2 $ran

podman stop -t 60 ksnapd > $out.stop.log 2>&1
check_st "podman stop ksnapd (SIGTERM)" 0 $? $out.stop.log
check "its ksnapd exited with status 0" 0 "$(podman inspect -f '{{.State.ExitCode}}' ksnapd 2>&1)"
check "--stop-on-exit stopped the collection" 0 "$(cat $KSNAP_SYS/enable)"
podman logs ksnapd > $out.log 2>&1
verify_status=0
ksnap-verify --tsv $out.tsv $data/ksnap.tsv > $out.verify 2>&1 || verify_status=$?
check "ksnap-verify accepts the container's stream" 0 $verify_status
[ $verify_status -eq 0 ] || show "$(tail -n 12 $out.verify)"
if id_line=$(identity $out.tsv); then pass "STATS identity: $id_line"; else fail "STATS identity adds up" "taken = rows + counted" "$id_line"; fi
figure "podman-ksnapd-rows" "$(tsv_rows $out.tsv | wc -l)"

podman rm -f ksnapd > /dev/null 2>&1

# Without privilege, as docs/containers.md gives it for podman: the
# device alone, no capability, a read-only root with a memory /run, and
# no --start: the host starts and stops the collection.
echo 1 > $KSNAP_SYS/enable
podman run -d --name ksnapd-u --network none --device /dev/ksnap \
	--cap-drop=all --read-only --tmpfs /run/ksnapd \
	-v /sys/fs/cgroup:/sys/fs/cgroup:ro -v $data:/var/lib/ksnap $image \
	--once -o /var/lib/ksnap/unpriv.tsv > $out.unpriv-run.log 2>&1
check_st "podman runs the image without privilege (--device /dev/ksnap --cap-drop=all --read-only)" 0 $? $out.unpriv-run.log
unpriv_rows() { [ -s $data/unpriv.tsv ] && [ "$(wc -l < $data/unpriv.tsv)" -ge "$1" ]; }
if poll 120 unpriv_rows 20; then
	pass "without privilege, ksnapd maps the ring and writes the host's collection"
else
	fail "without privilege, ksnapd writes rows within 120 s" "20 lines in $data/unpriv.tsv" \
		"$(wc -l < $data/unpriv.tsv 2>/dev/null); $(podman logs ksnapd-u 2>&1 | tail -n 5)"
fi
echo 0 > $KSNAP_SYS/enable
unpriv_exited() { [ "$(podman inspect -f '{{.State.Running}}' ksnapd-u 2>&1)" = false ]; }
poll 60 unpriv_exited
check "with --once, it ends when the host stops the collection, status 0" "false 0" \
	"$(podman inspect -f '{{.State.Running}} {{.State.ExitCode}}' ksnapd-u 2>&1)"
podman logs ksnapd-u > $out.unpriv.log 2>&1
verify_status=0
ksnap-verify --tsv $out.unpriv.tsv $data/unpriv.tsv > $out.unpriv.verify 2>&1 || verify_status=$?
check "ksnap-verify accepts the unprivileged container's stream" 0 $verify_status
[ $verify_status -eq 0 ] || show "$(tail -n 12 $out.unpriv.verify)"
podman rm -f ksnapd-u > /dev/null 2>&1

podman rmi -f $image $base localhost/ksnapt-bb > /dev/null 2>&1
rm -rf $data $ctx /tmp/ksnapt-bb-root /tmp/ksnapt-bb.tar
# docs/containers.md: back to the host's service.
systemctl unmask ksnapd.service > $out.unmask.log 2>&1 &&
	systemctl enable --now ksnapd.service >> $out.unmask.log 2>&1
check_st "systemctl unmask and enable --now ksnapd.service" 0 $? $out.unmask.log
poll 60 attached || fail "the service holds the device again" "attached" "$(ksnap_stat reader)"
end_test
