/* A program for the symbolizer's test: prints the addresses of functions
 * with known names, then waits for its stdin to close. */
#include <stdio.h>
#include <unistd.h>

int cowtop_known_function(int x);

/* A function the test names by address; never inlined, so it exists. */
__attribute__((noinline)) int cowtop_known_function(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

int main(void)
{
	char c;

	printf("%lx\n", (unsigned long)&cowtop_known_function);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return cowtop_known_function(0) == 1 ? 0 : 1;
}
