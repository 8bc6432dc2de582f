# SPDX-License-Identifier: MIT
# Pods by name on containerd's own CRI, on a node shaped as the kubelet
# shapes it: Debian's containerd with its CRI plugin and the systemd
# cgroup driver, driven through its CRI socket as the kubelet drives it
# (RunPodSandbox, CreateContainer, StartContainer, StopPodSandbox,
# RemovePodSandbox; a client of a few lines below, no crictl in Debian),
# each pod under kubepods-burstable-pod<uid>.slice with the host's
# network.  The images are a busybox root filesystem made here (the
# guest has no network), imported into containerd's k8s.io namespace.
#   - pod payments/api-7d9f, container "server": its log directory
#     /var/log/pods/<namespace>_<pod>_<uid>/ and its /var/log/containers
#     link, as the kubelet makes them;
#   - pod batch/job-1, container "worker": no log directory, so only the
#     runtime's bundle annotations name it.
# The packaged service, its unit as shipped with README.md's endpoint
# drop-in, follows docs/containers.md's pattern for containerd; its
# /metrics carries each container's and sandbox's series with namespace,
# pod, container, image, pod_uid, container_id and container_role, read
# from what containerd and the "kubelet" wrote.  A removed pod's series
# lose their current value, and the stream that held it names its
# containers in STATS, as ksnap-plot shows them.  A container the OOM
# killer ends has an exit record under its names, with the kill.
TEST=pods-by-name-on-containerd
. /guest/tests/syslib.sh
out=/out/cri
port=10109
dropin=/etc/systemd/system/ksnapd.service.d/web.conf
readme=/guest/files/README.md
image=localhost/ksnapt-busybox:1
pause=localhost/ksnapt-pause:1
pattern='/kubepods.slice/**/cri-containerd-*.scope'
uid1=1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901
uid2=2c3d4e5f-6071-8293-a4b5-c6d7e8f90a12
cri=/tmp/ksnapt-cri.py

# --- a CRI client: the kubelet's calls, protobuf encoded by hand --------------
cat > $cri <<'EOF'
import sys
import grpc

# k8s.io/cri-api runtime.v1: the field numbers are api.proto's.
def varint(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        if not n:
            return out + bytes([b])
        out += bytes([b | 0x80])

def fld(num, val):
    if isinstance(val, int):
        return varint(num << 3) + varint(val)
    val = val.encode() if isinstance(val, str) else val
    return varint(num << 3 | 2) + varint(len(val)) + val

def msg(*fields):
    return b"".join(fld(n, v) for n, v in fields if v is not None)

def first_string(buf):
    """A response's field 1, a string: every answer used here has it."""
    i = 0
    def vint():
        nonlocal i
        n = shift = 0
        while True:
            b = buf[i]
            i += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n
    while i < len(buf):
        key = vint()
        if key & 7 == 0:
            vint()
            continue
        n = vint()
        if key == (1 << 3 | 2):
            return buf[i:i + n].decode()
        i += n
    return ""

NODE = 2  # NamespaceMode NODE: the host's network (hostNetwork)

def sandbox_config(name, uid, ns, parent, logdir):
    meta = msg((1, name), (2, uid), (3, ns))
    linux = msg((1, parent), (2, msg((1, msg((1, NODE))))))
    # No hostname: a pod on the host's network has the host's (UTS too).
    return msg((1, meta), (3, logdir or None), (8, linux))

def call(ch, method, req):
    f = ch.unary_unary("/runtime.v1.RuntimeService/" + method,
                       request_serializer=lambda b: b,
                       response_deserializer=lambda b: b)
    return f(req, timeout=120)

ch = grpc.insecure_channel("unix:///run/containerd/containerd.sock")
op, a = sys.argv[1], sys.argv[2:]
if op == "version":
    print(first_string(call(ch, "Version", msg((1, "v1")))))
elif op == "run-pod":       # NAME UID NAMESPACE PARENT LOGDIR|-
    cfg = sandbox_config(a[0], a[1], a[2], a[3], "" if a[4] == "-" else a[4])
    print(first_string(call(ch, "RunPodSandbox", msg((1, cfg)))))
elif op == "create":        # POD-ID NAME UID NAMESPACE PARENT LOGDIR|- CONTAINER[:MEMORY-LIMIT] IMAGE CMD...
    logdir = "" if a[5] == "-" else a[5]
    cfg = sandbox_config(a[1], a[2], a[3], a[4], logdir)
    name, _, limit = a[6].partition(":")
    # LinuxContainerConfig: resources (memory_limit_in_bytes), security context
    resources = msg((4, int(limit))) if limit else None
    ccfg = msg((1, msg((1, name))), (2, msg((1, a[7]))),
               *[(3, c) for c in a[8:]],
               (11, name + "/0.log" if logdir else None),
               (15, msg((1, resources), (2, msg((3, msg((1, NODE))))))))
    print(first_string(call(ch, "CreateContainer", msg((1, a[0]), (2, ccfg), (3, cfg)))))
elif op == "start":         # CONTAINER-ID
    call(ch, "StartContainer", msg((1, a[0])))
elif op == "stop-pod":      # POD-ID
    call(ch, "StopPodSandbox", msg((1, a[0])))
elif op == "remove-pod":    # POD-ID
    call(ch, "RemovePodSandbox", msg((1, a[0])))
else:
    sys.exit("cri: unknown operation " + op)
EOF

# --- containerd, as a kubelet's node has it ----------------------------------
mkdir -p /etc/containerd
cat > /etc/containerd/config.toml <<EOF
version = 2
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = true
EOF
systemctl restart containerd > $out.containerd.log 2>&1
check_st "containerd starts with the CRI plugin and the systemd cgroup driver" 0 $? $out.containerd.log
cri_up() { python3 $cri version > $out.version 2>&1; }
if poll 120 cri_up; then
	pass "containerd answers CRI's Version ($(cat $out.version))"
else
	fail "containerd answers CRI's Version within 120 s" "a version" "$(tail -n 3 $out.version)"
fi

# The images: a busybox root filesystem, as the pod's and as the sandbox's.
rootfs=/tmp/ksnapt-cri-rootfs
rm -rf $rootfs && mkdir -p $rootfs/bin $rootfs/tmp
cp /bin/busybox $rootfs/bin/busybox
for a in sh sleep head cat; do ln -s busybox $rootfs/bin/$a; done
tar -C $rootfs -cf /tmp/ksnapt-cri-rootfs.tar .
imported=yes
for i in $image $pause; do
	rm -f /tmp/ksnapt-img.tar
	podman import --change 'CMD ["/bin/sleep", "100000"]' /tmp/ksnapt-cri-rootfs.tar $i >> $out.images.log 2>&1 &&
		podman save --format docker-archive -o /tmp/ksnapt-img.tar $i >> $out.images.log 2>&1 &&
		ctr -n k8s.io images import /tmp/ksnapt-img.tar >> $out.images.log 2>&1 || imported=no
done
check "the images are in containerd's k8s.io namespace" yes $imported
[ $imported = yes ] || sed 's/^/#   /' $out.images.log | tail -n 5 | tee -a "$RESULTS"

# --- ksnapd follows the pods' pattern, with its endpoint ----------------------
mkdir -p "$(dirname $dropin)"
awk -v f="# $dropin" '$0 == f { on = 1; next } on && /^```/ { exit } on' $readme > $dropin
systemctl stop ksnapd
cursor=$(journal_cursor)
echo "$pattern" > $KSNAP_SYS/cgroups && echo memory.current,pgfault > $KSNAP_SYS/metrics &&
	echo 10000 > $KSNAP_SYS/period_us
check_st "the module follows $pattern" 0 $?
systemctl daemon-reload
systemctl start ksnapd
poll 60 attached || fail "ksnapd holds the device" "attached" "$(ksnap_stat reader)"
echo 1 > $KSNAP_SYS/enable
endpoint_up() { curl -sf -o $out.metrics http://127.0.0.1:$port/metrics; }
poll 60 endpoint_up || fail "ksnapd serves /metrics" "HTTP 200" "$(journalctl -u ksnapd -n 5 -o cat --no-pager)"

# --- two pods, as the kubelet makes them -------------------------------------
parent_of() { echo "kubepods-burstable-pod$(echo "$1" | tr - _).slice"; }
logdir1=/var/log/pods/payments_api-7d9f_$uid1
mkdir -p $logdir1/server
pod1=$(python3 $cri run-pod api-7d9f $uid1 payments "$(parent_of $uid1)" $logdir1 2> $out.pod1.log)
check_st "RunPodSandbox payments/api-7d9f" 0 $? $out.pod1.log
c1=$(python3 $cri create "$pod1" api-7d9f $uid1 payments "$(parent_of $uid1)" $logdir1 server $image \
	/bin/sh -c 'head -c 8388608 /dev/zero > /tmp/x; exec sleep 100000' 2>> $out.pod1.log) &&
	python3 $cri start "$c1" 2>> $out.pod1.log
check_st "CreateContainer and StartContainer: server in payments/api-7d9f" 0 $? $out.pod1.log
mkdir -p /var/log/containers
ln -sf $logdir1/server/0.log "/var/log/containers/api-7d9f_payments_server-$c1.log"

pod2=$(python3 $cri run-pod job-1 $uid2 batch "$(parent_of $uid2)" - 2> $out.pod2.log)
check_st "RunPodSandbox batch/job-1, no log directory" 0 $? $out.pod2.log
c2=$(python3 $cri create "$pod2" job-1 $uid2 batch "$(parent_of $uid2)" - worker $image \
	/bin/sleep 100000 2>> $out.pod2.log) && python3 $cri start "$c2" 2>> $out.pod2.log
check_st "CreateContainer and StartContainer: worker in batch/job-1" 0 $? $out.pod2.log
info "pods $pod1 $pod2; containers $c1 $c2"

scope1=/kubepods.slice/kubepods-burstable.slice/$(parent_of $uid1)/cri-containerd-$c1.scope
check "the container's cgroup is the kubelet's shape ($scope1)" yes \
	"$([ -d /sys/fs/cgroup$scope1 ] && echo yes || echo "no: $(ls -d /sys/fs/cgroup/kubepods.slice/*/*/* 2>&1 | head -n 3)")"

# --- the series, by name -----------------------------------------------------
# The memory.current series of the cgroup whose path ends in cri-containerd-ID.scope.
series_of() { grep "^ksnap_cgroup_memory_current_bytes{cgroup=\"[^\"]*/cri-containerd-$1.scope\"" $out.metrics; }
has_series() { endpoint_up && [ -n "$(series_of "$1")" ]; }
for id in $c1 $c2 $pod1 $pod2; do
	poll 120 has_series "$id" || fail "/metrics has the memory series of cri-containerd-$id.scope within 120 s" "a series" \
		"$(grep -c '^ksnap_cgroup_memory_current_bytes' $out.metrics) series; set: $(ksnap_stat cgroups_matched)"
done
cp $out.metrics $out.metrics.pods
label() { # ID LABEL: its value in the container's series, or "(none)"
	_l=$(series_of "$1" | head -n 1 | grep -o "[{,]$2=\"[^\"]*\"" | sed 's/^.*="\(.*\)"$/\1/')
	echo "${_l:-(none)}"
}
sed 's/^/#   /' $out.metrics.pods | grep cri-containerd | head -n 4 | tee -a "$RESULTS" > /dev/null
check "server: namespace (the kubelet's log directory)" payments "$(label $c1 namespace)"
check "server: pod" api-7d9f "$(label $c1 pod)"
check "server: pod_uid" $uid1 "$(label $c1 pod_uid)"
check "server: container (the /var/log/containers link)" server "$(label $c1 container)"
check "server: container_id" $c1 "$(label $c1 container_id)"
check "server: image (containerd's annotations)" $image "$(label $c1 image)"
check "server: container_role" container "$(label $c1 container_role)"
check "api-7d9f's sandbox: container_role" sandbox "$(label $pod1 container_role)"
check "api-7d9f's sandbox: pod" api-7d9f "$(label $pod1 pod)"
check "api-7d9f's sandbox: no container" "(none)" "$(label $pod1 container)"
check "worker (annotations only): namespace" batch "$(label $c2 namespace)"
check "worker: pod" job-1 "$(label $c2 pod)"
check "worker: container" worker "$(label $c2 container)"
check "worker: image" $image "$(label $c2 image)"
check "worker: container_role" container "$(label $c2 container_role)"
check "job-1's sandbox: container_role" sandbox "$(label $pod2 container_role)"
v=$(series_of $c1 | head -n 1 | awk '{ print $2 }')
ge "server's memory.current holds its 8 MiB file" "$(printf '%.0f' "${v:-0}")" 8388608

# --- a container the OOM killer ends, by name ---------------------------------
# "hog" in payments/api-7d9f, limited to 16 MiB, holds 64 MiB in a shell
# variable a few seconds after it starts (time for the endpoint to name
# it): the kernel kills it, its scope goes, and the stream's STATS lists
# its exit record with the kill and its names.
mkdir -p $logdir1/hog
c3=$(python3 $cri create "$pod1" api-7d9f $uid1 payments "$(parent_of $uid1)" $logdir1 hog:16777216 $image \
	/bin/sh -c 'sleep 5; x=$(head -c 67108864 /dev/zero | tr "\\0" a); echo ${#x}' 2>> $out.pod1.log) &&
	python3 $cri start "$c3" 2>> $out.pod1.log
check_st "CreateContainer and StartContainer: hog, 16 MiB, in payments/api-7d9f" 0 $? $out.pod1.log
ln -sf $logdir1/hog/0.log "/var/log/containers/api-7d9f_payments_hog-$c3.log"
hog_exit() {
	ksnapd_journal "$cursor" | grep "^GVISOR_METRICS	STATS	" | grep -o "{\"cgroup\":\"[^\"]*cri-containerd-$c3.scope\",\"cgroup_id\":[^}]*}" > $out.hog-exit
	[ -s $out.hog-exit ]
}
if poll 120 hog_exit; then
	pass "a stream's STATS lists hog's exit record"
else
	fail "a stream's STATS lists hog's exit record within 120 s" "its record" \
		"$(ksnapd_journal "$cursor" | grep -c "^GVISOR_METRICS	STATS	") STATS lines; hog's cgroup: $(ls -d /sys/fs/cgroup/kubepods.slice/*/*/cri-containerd-$c3.scope 2>&1)"
fi
sed 's/^/#   /' $out.hog-exit | tee -a "$RESULTS" > /dev/null
member() { grep -o "\"$1\":[^,}]*" $out.hog-exit | head -n 1 | cut -d: -f2- | tr -d '"'; }
ge "hog's exit record: memory_oom_kill" "$(member memory_oom_kill)" 1
check "hog's exit record: namespace" payments "$(member namespace)"
check "hog's exit record: pod" api-7d9f "$(member pod)"
check "hog's exit record: container" hog "$(member container)"
check "hog's exit record: image" $image "$(member image)"

# --- a pod removed -----------------------------------------------------------
python3 $cri stop-pod "$pod2" > $out.remove.log 2>&1 && python3 $cri remove-pod "$pod2" >> $out.remove.log 2>&1
check_st "StopPodSandbox and RemovePodSandbox: batch/job-1" 0 $? $out.remove.log
no_current() { endpoint_up && [ -z "$(series_of "$c2")" ]; }
if poll 120 no_current; then
	pass "the removed pod's container has no current value"
else
	fail "the removed pod's container loses its current value within 120 s" "no series" "$(series_of "$c2")"
fi
check "server is still there" 1 "$(series_of "$c1" | wc -l)"

# --- the stream names them too -----------------------------------------------
# The removal changed the set: the stream that held job-1 ended, and its
# STATS lists who its cgroups were; ksnap-plot labels the series so.
worker_named() {
	[ "$(ksnapd_journal "$cursor" | grep "^GVISOR_METRICS	STATS	" |
		grep -c '"namespace":"batch","pod":"job-1","container":"worker"')" -gt 0 ]
}
if poll 60 worker_named; then
	pass "a stream's STATS names batch/job-1/worker (ksnap_cgroups)"
else
	fail "a stream's STATS names batch/job-1/worker within 60 s" "ksnap_cgroups with it" \
		"$(ksnapd_journal "$cursor" | grep "^GVISOR_METRICS	STATS	" | tail -n 1 | cut -c 1-300)"
fi
ksnapd_journal "$cursor" > $out.journal.tsv
# Its last stream is still being written (no STATS yet): a page, and
# status 1 for the stream it names unfinished.
ksnap-plot -q -o $out.plot.html $out.journal.tsv 2> $out.plot.err
check_st "ksnap-plot draws the journal (1: the open stream is unfinished)" 1 $? $out.plot.err
for name in payments/api-7d9f/server batch/job-1/worker "payments/api-7d9f (sandbox)"; do
	check "ksnap-plot labels a series $name" yes \
		"$(grep -qF "\"$name\"" $out.plot.html && echo yes || echo no)"
done

# --- back as it was -----------------------------------------------------------
python3 $cri stop-pod "$pod1" >> $out.remove.log 2>&1
python3 $cri remove-pod "$pod1" >> $out.remove.log 2>&1
systemctl stop containerd
echo 0 > $KSNAP_SYS/enable
systemctl stop ksnapd
rm -f $dropin "/var/log/containers/api-7d9f_payments_server-$c1.log" \
	"/var/log/containers/api-7d9f_payments_hog-$c3.log"
rm -rf $logdir1 /var/log/pods/batch_job-1_$uid2
rmdir "$(dirname $dropin)" 2>/dev/null
echo "$TEST_METRICS" > $KSNAP_SYS/metrics && echo > $KSNAP_SYS/cgroups &&
	echo "$TEST_PERIOD_US" > $KSNAP_SYS/period_us
systemctl daemon-reload
systemctl start ksnapd
end_test
