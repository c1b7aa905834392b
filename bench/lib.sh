# shellcheck shell=bash
# Helpers shared by the benchmark scripts. The sourcing script sets prog.

# Print an error and exit.
die()
{
	echo "$prog: $*" >&2
	exit 1
}

# Print a progress message on stderr.
note()
{
	echo "$prog: $*" >&2
}

# Check that $2 is a positive integer for option $1 and print it.
count_arg()
{
	[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer, got '$2'"
	echo "$2"
}

# Print "median min max" of the numbers in file $1, with $2 decimals
# (default 0).
stats()
{
	sort -g "$1" | awk -v d="${2:-0}" '{ v[NR] = $1 }
		END {
			if (NR % 2) m = v[(NR + 1) / 2]
			else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
			f = "%." d "f %." d "f %." d "f\n"
			printf f, m, v[1], v[NR]
		}'
}
