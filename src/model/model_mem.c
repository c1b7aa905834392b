/* What the model holds of a process's memory (smaps, inheritance, its
 * family's sharing, its cgroup) and of the machine's, with the figures
 * derived from them; and how a process ended. */
#include <stdio.h>
#include <string.h>
#include "model.h"
#include "model_int.h"

/* The name of signal sig, or NULL. Written out: sigabbrev_np is glibc 2.32+
 * only, and the names are the same on every Linux architecture cowtop runs. */
const char *proc_signal_name(int sig)
{
	static const char *const names[] = {
		NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
		"SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM",
		"SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN",
		"SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
		"SIGIO", "SIGPWR", "SIGSYS",
	};

	return sig > 0 && sig < (int)(sizeof(names) / sizeof(*names)) ? names[sig] : NULL;
}

/* How p ended in a few words; see model.h. */
const char *proc_exit_reason(const struct proc *p, char *buf, size_t cap)
{
	int sig = p->exit.status & 0x7f;
	const char *name = proc_signal_name(sig);

	if (!p->exited)
		snprintf(buf, cap, "%s", "");
	else if (p->exit.left)
		snprintf(buf, cap, "left cgroup");
	else if (p->exit.oom)
		snprintf(buf, cap, "oom-killed");
	else if (!p->exit.known)
		snprintf(buf, cap, "?");
	else if (!sig)
		snprintf(buf, cap, "exit %d", (p->exit.status >> 8) & 0xff);
	else if (name)
		snprintf(buf, cap, "%s%s", name, p->exit.status & 0x80 ? " (core)" : "");
	else
		snprintf(buf, cap, "signal %d%s", sig, p->exit.status & 0x80 ? " (core)" : "");
	return buf;
}

/* Take a reading of p's smaps_rollup made at unix time when; what p's
 * RSS and copies were then is kept with it. */
void model__set_smaps(struct proc *p, const struct smaps *s, double when)
{
	p->smaps = *s;
	p->smaps_time = when;
	p->smaps_rss_kib = p->rss_kib;
	p->smaps_cow = p->counts.cow;
}

/* Take the anonymous memory p inherited from its parent at fork. */
void model__set_inherited(struct proc *p, unsigned long long kib)
{
	p->inherited_kib = (long long)kib;
}

/* Take a pagemap reading of p's anonymous memory made at unix time when. */
void model__set_family(struct proc *p, const struct family_mem *f, double when)
{
	p->family = *f;
	p->family_time = when;
	p->family_why = FAMILY_KNOWN;
}

/* Say why p's family reading is unknown, dropping the one it had. */
void model__family_unknown(struct proc *p, enum family_why why)
{
	p->family = (struct family_mem){ 0 };
	p->family_time = 0;
	p->family_why = why == FAMILY_KNOWN ? FAMILY_FAILED : why;
}

/* Take the memory cgroup limit and usage of p. */
void model__set_memcg(struct proc *p, const struct memcg *cg)
{
	p->memcg = *cg;
}

/* Take MemAvailable of /proc/meminfo, KiB (0: unknown). */
void model__set_mem_available(struct model *m, unsigned long long kib)
{
	m->mem_available = kib;
}

/* MemAvailable, KiB; 0 when unknown. */
unsigned long long model__mem_available(const struct model *m)
{
	return m->mem_available;
}

/* Take a reading of the machine's memory pressure. */
void model__set_psi(struct model *m, const struct psi *psi)
{
	m->psi = *psi;
}

/* The last reading of the memory pressure (negative: unknown). */
struct psi model__psi(const struct model *m)
{
	return m->psi;
}

/* What p alone holds, KiB: its private pages, clean and dirty. */
unsigned long long proc_uss_kib(const struct proc *p)
{
	return p->smaps.private_clean + p->smaps.private_dirty;
}

/* Whether rss_kib and vsz_kib hold a reading: /proc stat gives them with
 * the state letter, which is never 0. */
bool proc_mem_known(const struct proc *p)
{
	return p->state != 0;
}

/* The share of what p inherited at fork that is still shared, 0..100; -1
 * when unknown. Anonymous pages not private dirty are still shared with
 * the parent or a sibling; a copy moves a page to private dirty. */
double proc_shared_pct(const struct proc *p)
{
	unsigned long long anon = p->smaps.anon, priv = p->smaps.private_dirty;
	double pct;

	if (!p->smaps_time || p->inherited_kib <= 0)
		return -1;
	pct = 100.0 * (double)(anon > priv ? anon - priv : 0) / (double)p->inherited_kib;
	return pct < 100.0 ? pct : 100.0;
}

/* The share of p's anonymous memory still shared with its family; see
 * model.h. */
double proc_family_pct(const struct proc *p)
{
	if (!p->family_time || !p->family.anon_kib)
		return -1;
	return 100.0 * (double)p->family.shared_kib / (double)p->family.anon_kib;
}

/* Why p's family reading is unknown; see model.h. */
const char *proc_family_why(const struct proc *p)
{
	if (p->family_time)
		return p->family.anon_kib ? NULL : "no anonymous memory present";
	switch (p->family_why) {
	case FAMILY_NO_PFN:
		return "pagemap hides frame numbers (needs CAP_SYS_ADMIN)";
	case FAMILY_FAILED:
		return "pagemap could not be read";
	case FAMILY_TOO_BIG:
		return "mappings too large to walk";
	default:
		return p->exited ? "exited before it was read" : "not read yet";
	}
}
