/* Attaching the USDT program to probe sites. All sites of one probe in one
 * object go in one multi-uprobe link where the kernel has them (6.6 and
 * later): attached at once and, above all, detached at once; one uprobe per
 * site costs the kernel about 0.1 s each to take down. Each site's cookie is
 * its spec in the usdt_specs map: how to read its arguments, what it does. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tracer_int.h"
#include "usdt_sites.h"

/* Not in the uapi headers of every distribution yet (Linux 6.6). */
#define COWTOP_TRACE_UPROBE_MULTI 48

/* The link_create part of union bpf_attr for BPF_TRACE_UPROBE_MULTI. */
struct uprobe_multi_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 uflags;
	__u32 pid;
	__u32 pad;
};

/* Create a multi-uprobe link of prog_fd on cnt sites of path; fd or -errno. */
static int uprobe_multi_link(int prog_fd, const char *path, const __u64 *offsets,
			     const __u64 *ref_ctr, const __u64 *cookies, __u32 cnt)
{
	struct uprobe_multi_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = (__u32)prog_fd;
	a.attach_type = COWTOP_TRACE_UPROBE_MULTI;
	a.path = (__u64)(unsigned long)path;
	a.offsets = (__u64)(unsigned long)offsets;
	a.ref_ctr_offsets = (__u64)(unsigned long)ref_ctr;
	a.cookies = (__u64)(unsigned long)cookies;
	a.cnt = cnt;
	fd = syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

/* Whether the kernel has multi-uprobe links: a program of that attach type
 * linked to "/" fails with EBADF (not a regular file) where it has them,
 * EINVAL where it does not. */
static bool has_uprobe_multi(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = (enum bpf_attach_type)COWTOP_TRACE_UPROBE_MULTI);
	__u64 off = 0;
	int prog, link;

	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "cowtop_probe", "GPL", insns, 2, &o);
	if (prog < 0)
		return false;
	link = uprobe_multi_link(prog, "/", &off, NULL, NULL, 1);
	if (link >= 0)
		close(link);
	close(prog);
	return link == -EBADF;
}

/* Before load: pick how USDT probes are attached (see above). */
void tracer__usdt_prepare(struct tracer *t, bool usdt)
{
	bpf_program__set_autoattach(t->skel->progs.on_usdt, false);
	if (!usdt || getenv("COWTOP_NO_UPROBE_MULTI") || !has_uprobe_multi())
		return;
	t->uprobe_multi = true;
	bpf_program__set_expected_attach_type(t->skel->progs.on_usdt,
					      (enum bpf_attach_type)COWTOP_TRACE_UPROBE_MULTI);
}

#define CLOSERS 8

/* A share of the links to close. */
struct closer {
	pthread_t thread;
	const int *fds;
	size_t n;
};

/* Close a share of the links. */
static void *close_links(void *arg)
{
	struct closer *c = arg;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	return NULL;
}

/* Close the multi-uprobe links. Each close waits for the kernel's grace
 * period (~0.05 s): closed from several threads, the waits overlap, so
 * exit stays prompt with many probes (32 specs: 32 links per object). */
void tracer__usdt_free(struct tracer *t)
{
	struct closer c[CLOSERS];
	size_t i, k = 0, per = (t->nfds + CLOSERS - 1) / CLOSERS;

	for (i = 0; per && i < t->nfds; i += per, k++) {
		c[k].fds = t->link_fds + i;
		c[k].n = t->nfds - i < per ? t->nfds - i : per;
		if (pthread_create(&c[k].thread, NULL, close_links, &c[k])) {
			close_links(&c[k]);
			c[k].n = 0;
		}
	}
	while (k--)
		if (c[k].n)
			pthread_join(c[k].thread, NULL);
	free(t->link_fds);
	free(t->specs);
}

/* The kernel's kind of a probe: what it does to its phase. */
static enum cowtop_probe_kind probe_kind(enum usdt_kind k)
{
	if (k == USDT_BEGIN)
		return COWTOP_PROBE_BEGIN;
	return k == USDT_END ? COWTOP_PROBE_END : COWTOP_PROBE_MARKER;
}

/* The kernel's spec of a site. */
static void site_spec(const struct usdt_site *s, __u64 cookie, struct cowtop_usdt_spec *k)
{
	int i;

	memset(k, 0, sizeof(*k));
	k->cookie = cookie;
	k->nargs = (__u32)(s->nargs < COWTOP_USDT_ARGS ? s->nargs : COWTOP_USDT_ARGS);
	for (i = 0; i < COWTOP_USDT_ARGS; i++) {
		const struct usdt_arg *a = &s->args[i];
		struct cowtop_usdt_arg *ka = &k->args[i];

		ka->type = a->kind == USDT_ARG_CONST ? COWTOP_ARG_CONST :
			   a->kind == USDT_ARG_REG ? COWTOP_ARG_REG :
			   a->kind == USDT_ARG_DEREF ? COWTOP_ARG_DEREF : COWTOP_ARG_NONE;
		ka->off = a->off;
		ka->reg_off = (__u16)a->reg_off;
		ka->shift = (__u8)(64 - 8 * (a->size ? a->size : 8));
		ka->is_signed = a->is_signed;
	}
}

/* The id of spec k in the usdt_specs map, adding it if new; -ENOSPC when
 * the map is full. */
static int spec_id(struct tracer *t, const struct cowtop_usdt_spec *k)
{
	__u32 i;

	for (i = 0; i < t->nspecs; i++)
		if (!memcmp(&t->specs[i], k, sizeof(*k)))
			return (int)i;
	if (t->nspecs == COWTOP_USDT_SPECS)
		return -ENOSPC;
	if (!t->specs) {
		t->specs = calloc(COWTOP_USDT_SPECS, sizeof(*t->specs));
		if (!t->specs)
			return -ENOMEM;
	}
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.usdt_specs), &i, k, BPF_ANY))
		return -errno;
	t->specs[i] = *k;
	t->nspecs++;
	return (int)i;
}

/* Keep a link fd so it is closed with the tracer. */
static int keep_fd(struct tracer *t, int fd)
{
	if (t->nfds == t->fds_cap) {
		size_t cap = t->fds_cap ? t->fds_cap * 2 : 8;
		int *v = realloc(t->link_fds, cap * sizeof(*v));

		if (!v) {
			close(fd);
			return -ENOMEM;
		}
		t->link_fds = v;
		t->fds_cap = cap;
	}
	t->link_fds[t->nfds++] = fd;
	return 0;
}

/* Keep a link so it is destroyed with the tracer. */
static int keep_link(struct tracer *t, struct bpf_link *l)
{
	if (t->nlinks == t->links_cap) {
		size_t cap = t->links_cap ? t->links_cap * 2 : 8;
		struct bpf_link **v = realloc(t->links, cap * sizeof(*v));

		if (!v) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		t->links = v;
		t->links_cap = cap;
	}
	t->links[t->nlinks++] = l;
	return 0;
}

/* One uprobe per site, for kernels without multi-uprobe links; all or none. */
static int attach_each(struct tracer *t, const char *path, const struct usdt_sites *ss,
		       const __u64 *cookies)
{
	size_t i, first = t->nlinks;
	int e = 0;

	for (i = 0; i < ss->n && !e; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .ref_ctr_offset = (size_t)ss->v[i].ref_ctr,
			    .bpf_cookie = cookies[i]);
		struct bpf_link *l = bpf_program__attach_uprobe_opts(t->skel->progs.on_usdt, -1,
								    path, ss->v[i].offset, &o);

		e = l ? keep_link(t, l) : -errno;
	}
	if (e) {
		while (t->nlinks > first)
			bpf_link__destroy(t->links[--t->nlinks]);
	}
	return e;
}

/* Attach every site of ss, each with its spec's cookie. */
static int attach_sites(struct tracer *t, const char *path, const struct usdt_sites *ss,
			__u64 cookie)
{
	__u64 *offs = calloc(ss->n, sizeof(*offs)), *refs = calloc(ss->n, sizeof(*refs));
	__u64 *cookies = calloc(ss->n, sizeof(*cookies));
	struct cowtop_usdt_spec k;
	bool any_ref = false;
	size_t i;
	int e = offs && refs && cookies ? 0 : -ENOMEM;

	for (i = 0; i < ss->n && !e; i++) {
		site_spec(&ss->v[i], cookie, &k);
		e = spec_id(t, &k);
		cookies[i] = (__u64)e;
		e = e < 0 ? e : 0;
		offs[i] = ss->v[i].offset;
		refs[i] = ss->v[i].ref_ctr;
		any_ref = any_ref || refs[i];
	}
	if (!e && t->uprobe_multi) {
		e = uprobe_multi_link(bpf_program__fd(t->skel->progs.on_usdt), path, offs,
				      any_ref ? refs : NULL, cookies, (__u32)ss->n);
		e = e < 0 ? e : keep_fd(t, e);
	} else if (!e) {
		e = attach_each(t, path, ss, cookies);
	}
	free(offs);
	free(refs);
	free(cookies);
	return e;
}

/* Attach the USDT program to every site of provider:name in the ELF object
 * at path (see tracer.h). */
int tracer__attach_usdt(struct tracer *t, const char *path, const char *provider,
			const char *name, const struct tracer_usdt_probe *p,
			struct tracer_usdt_result *res)
{
	struct usdt_sites ss;
	int e;

	memset(res, 0, sizeof(*res));
	e = usdt_sites__collect(path, provider, name, &ss);
	if (e)
		return e;
	res->sites = ss.n;
	res->unavailable = ss.unavailable;
	if (!ss.n) {
		usdt_sites__free(&ss);
		return -ENOENT;
	}
	res->multi = t->uprobe_multi;
	res->first = t->uprobe_multi ? t->nfds : t->nlinks;
	e = attach_sites(t, path, &ss,
			 COWTOP_COOKIE(p->probe, probe_kind(p->kind), p->phase));
	res->attached = !e;
	usdt_sites__free(&ss);
	return e;
}

/* Take down what one tracer__attach_usdt attached (see tracer.h). */
void tracer__detach_usdt(struct tracer *t, struct tracer_usdt_result *res)
{
	size_t i;

	if (!res->attached)
		return;
	res->attached = false;
	if (res->multi) {
		if (res->first < t->nfds && t->link_fds[res->first] >= 0) {
			close(t->link_fds[res->first]);
			t->link_fds[res->first] = -1;
		}
		return;
	}
	for (i = res->first; i < res->first + res->sites && i < t->nlinks; i++) {
		bpf_link__destroy(t->links[i]);
		t->links[i] = NULL;
	}
}
