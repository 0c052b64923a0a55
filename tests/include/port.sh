# SPDX-License-Identifier: Apache-2.0
# free_port: print a TCP port on 127.0.0.1 that nothing listens on, below the
# ephemeral range. Ports in that range sit in TIME_WAIT after the suite's many
# short client connections, and a listener without SO_REUSEADDR (Prometheus,
# systemd-socket-activate) cannot bind those: a random pick there fails now and then.
free_port() {
	local port low
	read -r low _ </proc/sys/net/ipv4/ip_local_port_range
	[ "$low" -gt 11000 ] || low=32768
	for _ in $(seq 1 50); do
		port=$((10000 + RANDOM % (low - 10000)))
		if ! (: </dev/tcp/127.0.0.1/"$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	return 1
}
