/* Privilege and kernel checks that turn obscure load errors into sentences. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "preflight.h"
#include "procfs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/* Whether capability cap is in our effective set. */
static bool has_cap(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1u << (cap % 32));
}

/* Whether file path contains needle (false when unreadable). */
static bool file_has(const char *path, const char *needle)
{
	char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* Check what cowtop needs of its privileges and the kernel. */
int preflight_check(char *err, size_t errlen)
{
	if (!has_cap(CAP_SYS_ADMIN) && !(has_cap(CAP_BPF) && has_cap(CAP_PERFMON))) {
		snprintf(err, errlen, "needs root (or CAP_BPF and CAP_PERFMON) to load BPF programs");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen, "kernel has no BTF (/sys/kernel/btf/vmlinux): "
			 "it needs CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
	if (!procfs_pidns_is_initial()) {
		/* The BPF side keys processes by the initial namespace's pids:
		 * shown here they would name other processes, or none. */
		snprintf(err, errlen, "cannot run inside a PID namespace: the kernel side sees the "
			 "host's pids; run cowtop in the host's PID namespace (it can watch "
			 "processes inside containers from there)");
		return -EPERM;
	}
	if (file_has("/sys/kernel/security/lockdown", "[confidentiality]")) {
		snprintf(err, errlen, "kernel lockdown is 'confidentiality': "
			 "BPF programs may not read kernel memory");
		return -EPERM;
	}
	return 0;
}
