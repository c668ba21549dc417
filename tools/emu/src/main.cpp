// uattn-emu: inspect and check AMDGPU code objects with the instruction-level
// emulator, on a machine without a GPU.
//
//   uattn-emu kernels  FILE [--arch gfx950]   kernels with their descriptor fields
//   uattn-emu coverage FILE... [--arch A]      every opcode / operand form the emulator
//                                               does not implement; exit 1 if any
//   uattn-emu census   FILE [--arch A]         static opcode counts
//
// FILE is an ELF code object (.co / .hsaco) or an offload bundle (.hipfb, plain
// or compressed; --arch picks its code object). Running an instance on a
// problem against the fp64 reference: `uattn-run --engine isa` (README).
// Exit codes: 0 ok, 1 a check failed, 2 usage error or unreadable input.
#include <stdio.h>

#include <CLI/CLI.hpp>

#include "uattn/emu/emu.hpp"

int main(int argc, char** argv) {
  CLI::App app{"uattn-emu: the AMDGPU instruction-level emulator's code-object checks"};
  app.require_subcommand(1);
  std::vector<std::string> files;
  std::string arch;
  auto* kernels = app.add_subcommand("kernels", "list the kernels of a code object with their descriptor fields");
  auto* coverage = app.add_subcommand("coverage", "list every opcode / operand form not implemented (exit 1 if any)");
  auto* census = app.add_subcommand("census", "static opcode counts of a code object");
  for (CLI::App* s : {kernels, coverage, census}) {
    s->add_option("files", files, "code object (.co / .hsaco) or offload bundle (.hipfb)")->required()->check(CLI::ExistingFile);
    s->add_option("--arch", arch, "the bundle entry to take: a processor the emulator runs")
        ->check(CLI::IsMember(uattn::emu::processors()));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    fprintf(stderr, "uattn-emu: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  int rc = 0;
  for (const std::string& f : files) {
    std::shared_ptr<uattn::emu::CodeObject> co;
    try {
      co = uattn::emu::CodeObject::load_file(f, arch);
    } catch (const std::exception& e) {
      fprintf(stderr, "%s\n", e.what());
      return 2;
    }
    try {
      if (*kernels) {
        for (const std::string& k : co->kernels()) {
          const uattn::emu::KernelDesc* d = co->kernel(k);
          printf("%s  wave%u lds %u scratch %u kernarg %u rsrc1 0x%08x rsrc2 0x%08x rsrc3 0x%08x props 0x%04x\n",
                 k.c_str(), d->wavefront_size, d->group_segment_fixed_size, d->private_segment_fixed_size,
                 d->kernarg_size, d->rsrc1, d->rsrc2, d->rsrc3, d->code_properties);
        }
      } else if (*coverage) {
        const auto bad = co->unimplemented();
        printf("%s (%s, %zu kernels): %zu opcode / operand forms not implemented\n", f.c_str(),
               co->processor().c_str(), co->kernels().size(), bad.size());
        for (const std::string& b : bad) printf("  %s\n", b.c_str());
        if (!bad.empty()) rc = 1;
      } else {
        for (const auto& [op, n] : co->opcode_census()) printf("%10zu  %s\n", n, op.c_str());
      }
    } catch (const std::exception& e) {
      fprintf(stderr, "uattn-emu: %s: %s\n", f.c_str(), e.what());
      return 2;
    }
  }
  return rc;
}
