#!/bin/sh
# The license files say what the sources say: COPYING is the GPL version 2,
# every SPDX line in the sources names GPL-2.0 (the BPF side must be GPL to
# use the kernel's GPL-only helpers; the rest is under the same license),
# the BPF object declares "GPL" to the kernel, and the README says so.
set -u
top="${srcdir:-.}"
fail=0

# Report one check: result message.
say() {
	if [ "$1" -eq 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fail=1; fi
}

grep -q "GNU GENERAL PUBLIC LICENSE" "$top/COPYING" 2>/dev/null &&
	grep -q "Version 2, June 1991" "$top/COPYING"
say $? "COPYING is the GNU GPL version 2"

others=$(grep -rIo --exclude='*.skel.h' --exclude-dir=corpus \
	'SPDX-License-Identifier: *[^ */]*' \
	"$top/bpf" "$top/src" "$top/ui" "$top/tests" "$top/completions" "$top/scripts" 2>/dev/null |
	grep -v -E 'SPDX-License-Identifier: *GPL-2\.0(-only)?$' |
	grep -v -E 'test_license\.sh:')
[ -z "$others" ]
say $? "every SPDX line names GPL-2.0${others:+ (not: $others)}"

n=$(grep -rIl --exclude='*.skel.h' 'SPDX-License-Identifier: *GPL-2\.0' "$top/bpf" | wc -l)
[ "$n" -ge 1 ]
say $? "the BPF sources carry their SPDX line"

grep -q 'SEC("license") = "GPL"' "$top/bpf/cowtop.bpf.c"
say $? "the BPF object declares the GPL to the kernel"

grep -q 'GPL-2\.0' "$top/README.md" && grep -q 'COPYING' "$top/README.md"
say $? "the README names the license and COPYING"
exit "$fail"
