/* The built-in preforking workload behind --demo. */
#ifndef COWTOP_DEMO_H
#define COWTOP_DEMO_H

#define DEMO_ARG "--demo-workload"

int demo_main(void);

#endif
