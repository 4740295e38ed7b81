//===- ConformanceMain.cpp - main() of tegula-conformance -----------------===//
//
// The program form of the suite (library TegulaConformanceMain): link it with
// TegulaConformance to get a runner configured by flags or the environment.
//
//===----------------------------------------------------------------------===//

#include "tegula/Conformance.h"

int main(int argc, char **argv) {
  return tegula::conformance::runMain(argc, argv);
}
