#!/usr/bin/env python3
"""What the master's admin HTTP answers about where an object lives, and what asking costs.

Run inside a private network namespace with only loopback (MOONCAKE_* from /tmp/mc-env.sh):
  unshare -n bash -c 'ip link set lo up; python3 bench/probes/query_key_probe.py'
Starts a master on 127.0.0.1 (rpc 50051, admin 9003), two C-ABI clients with a 32 MiB segment
each, puts a hard-pinned lock-sized object preferring client a's segment and one with two replicas,
then prints /get_segments_detail, /query_key for several key spellings, /batch_query_keys, and the
mean time of 200 sequential /query_key requests (a new connection each: an upper bound for a
client that keeps its connection). Used by docs/cluster-consistency.md ("Placement fallback").
"""
import ctypes, json, os, subprocess, time, urllib.error, urllib.request

ADMIN = "http://127.0.0.1:9003"


class ReplicateConfig(ctypes.Structure):  # layout v2 (Mooncake 3b5a594), see shared MOONCAKE.md
    _fields_ = [("replica_num", ctypes.c_size_t), ("with_soft_pin", ctypes.c_int),
                ("with_hard_pin", ctypes.c_int), ("preferred", ctypes.POINTER(ctypes.c_char_p)),
                ("preferred_count", ctypes.c_size_t)]


def get(path):
    try:
        with urllib.request.urlopen(ADMIN + path) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def main():
    master = subprocess.Popen([os.environ["MOONCAKE_MASTER"], "--rpc_address=127.0.0.1",
                               "--rpc_port=50051", "--metrics_host=127.0.0.1",
                               "--metrics_port=9003", "--default_kv_lease_ttl=500"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.5)
        lib = ctypes.CDLL(os.environ["MOONCAKE_STORE_LIBRARY"])
        lib.mooncake_store_create.restype = ctypes.c_void_p

        def client():
            h = ctypes.c_void_p(lib.mooncake_store_create())
            assert lib.mooncake_store_setup(h, b"127.0.0.1", b"P2PHANDSHAKE",
                                            ctypes.c_uint64(32 << 20), ctypes.c_uint64(16 << 20),
                                            b"tcp", b"", b"127.0.0.1:50051") == 0
            name = ctypes.create_string_buffer(256)
            lib.mooncake_store_get_hostname(h, name, ctypes.c_size_t(256))
            return h, name.value

        (a, a_name), (b, b_name) = client(), client()
        print("segments a", a_name.decode(), "b", b_name.decode())
        print("/get_segments_detail", get("/get_segments_detail")[1])
        value = ctypes.c_char_p(b"x" * 50)
        prefer_a = ReplicateConfig(1, 0, 1, (ctypes.c_char_p * 1)(a_name), 1)
        for key in [b"mcjlock/ZGVmYXVsdA/b3JkZXJz/aw", b"x y"]:
            print("put", key, lib.mooncake_store_put(a, key, value, ctypes.c_size_t(50),
                                                      ctypes.byref(prefer_a)))
        print("put two replicas", lib.mooncake_store_put(
            b, b"two", value, ctypes.c_size_t(50), ctypes.byref(ReplicateConfig(2, 0, 1, None, 0))))
        for spelling in ["mcjlock/ZGVmYXVsdA/b3JkZXJz/aw", "mcjlock%2FZGVmYXVsdA%2Fb3JkZXJz%2Faw",
                         "two", "x%20y", "absent"]:
            print("/query_key?key=" + spelling, *get("/query_key?key=" + spelling))
        print("/batch_query_keys", *get("/batch_query_keys?keys=two,absent"))
        n, start = 200, time.perf_counter()
        for _ in range(n):
            get("/query_key?key=mcjlock/ZGVmYXVsdA/b3JkZXJz/aw")
        print("query_key mean ms %.3f over %d" % ((time.perf_counter() - start) * 1000 / n, n))
    finally:
        master.kill()


if __name__ == "__main__":
    main()
