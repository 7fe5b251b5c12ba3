// The Tilus passes by name in a textual pipeline (tilusRegisterPasses) in
// tilus-opt; mlir-plugin.mlir runs them in stock mlir-opt.
// RUN: tilus-opt --split-input-file --verify-diagnostics --tilus-plan-shared %S/../Transforms/plan-shared.mlir > %t.flag
// RUN: tilus-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tilus-plan-shared)' %S/../Transforms/plan-shared.mlir > %t.named
// RUN: diff %t.flag %t.named
// RUN: FileCheck %s --check-prefix=PLAN < %t.named
// PLAN: tilus.shared_offset
