// SPDX-License-Identifier: MIT
//
// inline.cc - a C++ workload for the report's names: a class method in a namespace, a template
// whose always_inline member is inlined into it, and a second method that is not inlined.
//
//   inline [CPU_SECONDS]     (default 0.5)
//
// shapes::Engine::spin(long) spends its time in the loop of
// shapes::Accumulator<double>::add(double), inlined: the code is spin's, the source lines
// add's (perf names spin; kprof too, and add with --inline-self); shapes::Engine::idle(long) is
// its own function. Built -O2 -g.
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace shapes {

#define ROUNDS 64 /* add's loop, for each of spin's */

template <typename T> struct Accumulator {
	T total{};
	__attribute__((always_inline)) inline void add(T v)
	{
		for (int k = 0; k < ROUNDS; k++) /* each round waits for the one before */
			total += v * v + total * 1e-9;
	}
};

class Engine {
      public:
	__attribute__((noinline)) double spin(long n);
	__attribute__((noinline)) double idle(long n);
};

double Engine::spin(long n)
{
	Accumulator<double> acc;
	for (long i = 0; i < n / ROUNDS; i++)
		acc.add(i * 0.5);
	return acc.total;
}

double Engine::idle(long n)
{
	volatile double x = 0;
	for (long i = 0; i < n; i++)
		x = x + 1;
	return x;
}

} // namespace shapes

static double cpu_seconds()
{
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double budget = argc > 1 ? atof(argv[1]) : 0.5, sum = 0;
	shapes::Engine e;

	while (cpu_seconds() < budget)
		sum += e.spin(200000) + e.idle(20000);
	printf("sum=%g\n", sum);
	return 0;
}
