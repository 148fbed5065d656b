# SPDX-License-Identifier: GPL-2.0-or-later
# An sshd on a loopback port with its own PAM stack, for t_adopt.sh (bash,
# sourced after lib.sh, with the cluster's env). Everything lives under
# $QD_CLUSTER_DIR/ssh. sshd reads its PAM stack from /etc/pam.d/sshd alone
# (OpenSSH 9.8 and later fix the service name to "sshd"), so the test's
# stack, $SSH_DIR/pam, is bind-mounted over it in a mount namespace of this
# sshd's own: nothing outside it sees the change.
SSH_DIR=$QD_CLUSTER_DIR/ssh
SSHD_SERVICE=sshd
SSHD_PID=$SSH_DIR/sshd.pid
SSHD_PORT=

# sshd_pam_stack LINES: the account and session lines after sshd's own.
sshd_pam_stack() {
	{
		echo "# t_adopt.sh (qosdeny tests): sshd reads this as /etc/pam.d/sshd"
		# publickey logins: PAM's auth stack is not asked
		echo "auth     required pam_deny.so"
		printf '%s\n' "$1"
	} >"$SSH_DIR/pam" # the same file (inode): sshd sees each change
}

# sshd_start: sshd on 127.0.0.1:$SSHD_PORT, key login for
# alice with $SSH_DIR/key.
sshd_start() {
	local sshd
	mkdir -p "$SSH_DIR/keys" /run/sshd
	chmod 755 "$SSH_DIR"
	[ -f "$SSH_DIR/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/host_key"
	[ -f "$SSH_DIR/key" ] || ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/key"
	cp "$SSH_DIR/key.pub" "$SSH_DIR/keys/alice"
	chmod 644 "$SSH_DIR/keys/alice"
	SSHD_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat >"$SSH_DIR/sshd_config" <<EOF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $SSH_DIR/host_key
PidFile $SSHD_PID
UsePAM yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin no
AuthorizedKeysFile $SSH_DIR/keys/%u
StrictModes no
AllowUsers alice
PrintMotd no
SetEnv SLURM_CONF=$SLURM_CONF
EOF
	rm -f "$SSHD_PID"
	[ -f "$SSH_DIR/pam" ] || sshd_pam_stack ""
	[ -e /etc/pam.d/sshd ] || {
		echo "sshd-lib: /etc/pam.d/sshd missing (openssh-server)" >&2
		return 1
	}
	sshd=$(command -v sshd || echo /usr/sbin/sshd)
	# OpenSSH 9.8 and later penalise a source for failed logins (at its
	# third within a few seconds, refusing every connection from it for a
	# while): the test's refused sessions are meant, and must not refuse
	# the next session's. Older sshd know no such option.
	"$sshd" -t -f "$SSH_DIR/sshd_config" -o PerSourcePenalties=no \
		>/dev/null 2>&1 &&
		echo "PerSourcePenalties no" >>"$SSH_DIR/sshd_config"
	# pam_slurm_adopt, in sshd's own process, reads SLURM_CONF.
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin SLURM_CONF="$SLURM_CONF" \
		unshare -m --propagation private sh -c \
		'mount --bind "$1" /etc/pam.d/sshd && exec "$2" -f "$3" -E "$4"' \
		sh "$SSH_DIR/pam" "$sshd" "$SSH_DIR/sshd_config" \
		"$SSH_DIR/sshd.log" || return 1
	wait_for "sshd's pid file" 10 test -s "$SSHD_PID"
}

# sshd_stop: sshd by its pid (checked to be ours); its mount namespace goes
# with it.
sshd_stop() {
	local pid
	pid=$(cat "$SSHD_PID" 2>/dev/null)
	if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
		grep -qF "$SSH_DIR/sshd_config"; then
		kill "$pid"
		wait_for "sshd $pid to stop" 10 eval "! kill -0 $pid 2>/dev/null"
	fi
	rm -f "$SSHD_PID"
}

# ssh_alice CMD: runs CMD over ssh as alice; sets OUT (stdout+stderr), RC.
ssh_alice() {
	OUT=$(timeout -k 5 60 ssh -F /dev/null -i "$SSH_DIR/key" -p "$SSHD_PORT" \
		-o BatchMode=yes -o StrictHostKeyChecking=no \
		-o UserKnownHostsFile=/dev/null \
		alice@127.0.0.1 "$1" 2>&1)
	RC=$?
}
