#!/usr/bin/env python3
"""armsim: run a Cortex-M lab firmware (ELF) in unicorn and count its cycles.

    python3 armsim.py --cpu cortex-m0plus|cortex-m4 [--flash-wait-states W]
                      [--max-instructions N] [--max-cycles N] firmware.elf

The firmware follows the contract of c/lab/wb_lab.h: one-byte writes to the
lab registers MARK (0x40000000), PUTC (0x40000004) and EXIT (0x40000008).
Output on stdout, one line per event:

    mark <id> <cycles> <instructions>   per MARK write
    out <text>                          per line written through PUTC
    exit <code> <cycles> <instructions> on the EXIT write (then armsim stops)

The counts are since reset and include the store that writes the register.
Cycles come from the per-instruction model of cycles.py (see CYCLES.md).

Exit status: 0 when the firmware wrote EXIT (whatever the code), 3 with one
line on stderr when it ran past --max-instructions/--max-cycles, executed an
invalid or unmodelled instruction, touched unmapped memory, wrote to flash,
raised a CPU exception or reached a fault handler; 2 on a usage error or an
ELF armsim cannot load (including one whose build attributes name another
architecture than --cpu's, or the hard-float ABI).

Memory map: flash 0x00000000 (1 MiB, read/execute), RAM 0x20000000 (32 KiB
on cortex-m0plus as on a SAMD21G18, 256 KiB on cortex-m4 as on an nRF52840;
--ram-size overrides), the lab page 0x40000000 (4 KiB; only the three
registers may be written). Anything else is unmapped.

Speed: a hook per translation block (not per instruction). Each block is
decoded and charged once (cycles.build_block) and its total added whenever it
runs; a conditional branch that ends a block adds its taken cost when the next
block does not start at the fall-through address. SDIV/UDIV (M4) get a hook at
their own address, since their cost depends on the operands.
"""

import argparse
import os
import sys

import capstone
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection
import unicorn
from unicorn import arm_const as uac

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cycles as model  # noqa: E402

FLASH_BASE = 0x00000000
FLASH_SIZE = 1 << 20
RAM_BASE = 0x20000000
LAB_BASE = 0x40000000
LAB_SIZE = 0x1000
REG_MARK = LAB_BASE + 0x0
REG_PUTC = LAB_BASE + 0x4
REG_EXIT = LAB_BASE + 0x8

# cpu name -> ELF Tag_CPU_arch values accepted (ARM EABI build attributes:
# 11 v6-M, 12 v6S-M, 10 v7 (with profile M: v7-M), 13 v7E-M)
CPU_ARCHS = {"cortex-m0plus": {11: "v6-M", 12: "v6S-M"},
             "cortex-m4": {10: "v7-M", 13: "v7E-M"}}
ARCH_NAMES = {10: "v7", 11: "v6-M", 12: "v6S-M", 13: "v7E-M", 14: "v8-A", 16: "v8-M.base",
              17: "v8-M.main"}

# cpu name -> (unicorn CPU model, default RAM size)
CPUS = {
    "cortex-m0plus": (uac.UC_CPU_ARM_CORTEX_M0, 32 * 1024),
    "cortex-m4": (uac.UC_CPU_ARM_CORTEX_M4, 256 * 1024),
}

EXCEPTION_NAMES = {2: "NMI", 3: "HardFault", 4: "MemManage", 5: "BusFault",
                   6: "UsageFault", 11: "SVCall", 12: "DebugMonitor",
                   14: "PendSV", 15: "SysTick"}


class LoadError(Exception):
    """The ELF cannot be run (exit status 2)."""


class Sim:
    def __init__(self, cpu, elf_path, wait_states=0, max_insns=200_000_000,
                 max_cycles=0, ram_size=None, out=sys.stdout):
        uc_model, default_ram = CPUS[cpu]
        self.core = model.CORES[cpu]
        self.cpu = cpu
        self.wait_states = wait_states
        self.max_insns = max_insns
        self.max_cycles = max_cycles if max_cycles else 1 << 62
        self.ram_size = ram_size or default_ram
        self.out = out

        # Without UC_MODE_MCLASS: that mode makes unicorn 2.1 ignore the CPU
        # model and run a Cortex-M33 (ARMv8-M), which would accept Thumb-2 in
        # M0+ firmware. The M0 and M4 models are M-profile by themselves.
        self.uc = unicorn.Uc(unicorn.UC_ARCH_ARM, unicorn.UC_MODE_THUMB, cpu=uc_model)
        if self.uc.ctl_get_cpu_model() != uc_model:
            raise LoadError(f"unicorn did not take CPU model {cpu}")
        self.md = capstone.Cs(capstone.CS_ARCH_ARM,
                              capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
        self.md.detail = True

        # counters (instructions and cycles since reset)
        self.cycles = 0
        self.insns = 0
        self.block_c0 = 0  # counts before the current block
        self.block_i0 = 0
        self.block = None
        self.pend_extra = 0  # taken cost of the previous block's last branch
        self.pend_fall = -1  # ... charged unless execution falls through to here
        self.blocks = {}  # (address << 16 | size) -> model.Block
        self.div_hooked = set()
        self.div_ops = {}  # address -> (rn, rm, signed)

        self.error = None  # one-line message when the run failed
        self.exit_code = None
        self.line = bytearray()
        self.fault = None  # details of an unmapped/protected access

        self._load(elf_path)
        self._hooks()

    # ---- loading --------------------------------------------------------

    def _load(self, path):
        uc = self.uc
        uc.mem_map(FLASH_BASE, FLASH_SIZE, unicorn.UC_PROT_READ | unicorn.UC_PROT_EXEC)
        uc.mem_map(RAM_BASE, self.ram_size, unicorn.UC_PROT_ALL)
        uc.mem_map(LAB_BASE, LAB_SIZE, unicorn.UC_PROT_READ | unicorn.UC_PROT_WRITE)
        code_ranges = []
        mapping = []
        try:
            with open(path, "rb") as f:
                elf = ELFFile(f)
                if elf["e_machine"] != "EM_ARM" or elf.elfclass != 32:
                    raise LoadError(f"{path}: not a 32-bit ARM ELF")
                self._check_attributes(elf, path)
                for seg in elf.iter_segments():
                    if seg["p_type"] != "PT_LOAD" or seg["p_filesz"] == 0:
                        continue
                    addr, data = seg["p_paddr"], seg.data()
                    if not self._mapped(addr, len(data)):
                        raise LoadError(f"{path}: segment at {addr:#x} (+{len(data):#x}) "
                                        f"outside flash/RAM")
                    uc.mem_write(addr, data)
                    if seg["p_flags"] & 1:  # PF_X
                        code_ranges.append((addr, addr + len(data)))
                for sec in elf.iter_sections():
                    if isinstance(sec, SymbolTableSection):
                        for sym in sec.iter_symbols():
                            if sym.name in ("$t", "$d", "$a") or sym.name.startswith(("$t.", "$d.")):
                                mapping.append((sym["st_value"], sym.name[1]))
        except (OSError, ValueError) as e:
            raise LoadError(f"{path}: {e}") from e
        vec = uc.mem_read(FLASH_BASE, 64)
        words = [int.from_bytes(vec[i:i + 4], "little") for i in range(0, 64, 4)]
        self.initial_sp, self.reset = words[0], words[1]
        if not (RAM_BASE < self.initial_sp <= RAM_BASE + self.ram_size):
            raise LoadError(f"{path}: initial SP {self.initial_sp:#x} is not in RAM "
                            f"({RAM_BASE:#x}..{RAM_BASE + self.ram_size:#x})")
        if not (self.reset & 1) or not self._mapped(self.reset & ~1, 2):
            raise LoadError(f"{path}: reset vector {self.reset:#x} is not a Thumb code address")
        self.handlers = {}
        for n in range(2, 16):
            a = words[n] & ~1
            if words[n] and a != self.reset & ~1 and n in EXCEPTION_NAMES:
                self.handlers.setdefault(a, []).append(n)
        if self.core.has_div:
            self._scan_divs(code_ranges, mapping)

    def _check_attributes(self, elf, path):
        """Refuse firmware built for another core or for the hard-float ABI
        (from the .ARM.attributes section; an ELF without it is not checked)."""
        sec = elf.get_section_by_name(".ARM.attributes")
        if sec is None or not hasattr(sec, "iter_subsections"):
            return
        tags = {}
        for sub in sec.iter_subsections():
            for subsub in sub.iter_subsubsections():
                for attr in subsub.iter_attributes():
                    tags[attr.tag] = attr.value
        arch = tags.get("TAG_CPU_ARCH")
        if arch is not None and arch not in CPU_ARCHS[self.cpu]:
            want = "/".join(CPU_ARCHS[self.cpu].values())
            raise LoadError(f"{path}: built for ARM{ARCH_NAMES.get(arch, arch)}, but --cpu "
                            f"{self.cpu} runs ARM{want} (rebuild with -mcpu={self.cpu})")
        if tags.get("TAG_ABI_VFP_ARGS") == 1:
            raise LoadError(f"{path}: hard-float ABI; the cycle model has no VFP timings "
                            f"(build with -mfloat-abi=soft)")

    def _mapped(self, addr, size):
        end = addr + size
        return (FLASH_BASE <= addr and end <= FLASH_BASE + FLASH_SIZE) or \
            (RAM_BASE <= addr and end <= RAM_BASE + self.ram_size)

    def _scan_divs(self, code_ranges, mapping):
        """Find SDIV/UDIV before the run, to hook their addresses.

        The ELF's mapping symbols ($t code, $d data) give the code ranges; a
        stripped ELF is swept whole (data may then hide a divide, which is
        caught later by the block classification)."""
        ranges = []
        if mapping:
            mapping.sort()
            for i, (addr, kind) in enumerate(mapping):
                if kind != "t":
                    continue
                end = mapping[i + 1][0] if i + 1 < len(mapping) else None
                for lo, hi in code_ranges:
                    if lo <= addr < hi:
                        ranges.append((addr, min(end, hi) if end else hi))
        else:
            ranges = code_ranges
        md = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
        md.skipdata = True
        for lo, hi in ranges:
            code = bytes(self.uc.mem_read(lo, hi - lo))
            for insn in md.disasm(code, lo):
                if insn.mnemonic in ("sdiv", "udiv"):
                    self._hook_div(insn.address)

    def _hook_div(self, addr):
        if addr not in self.div_hooked:
            self.div_hooked.add(addr)
            self.uc.hook_add(unicorn.UC_HOOK_CODE, self._on_div, begin=addr, end=addr)

    # ---- hooks ------------------------------------------------------------

    def _hooks(self):
        uc = self.uc
        uc.hook_add(unicorn.UC_HOOK_BLOCK, self._on_block)
        uc.hook_add(unicorn.UC_HOOK_MEM_WRITE, self._on_lab_write, begin=LAB_BASE,
                    end=LAB_BASE + LAB_SIZE - 1)
        uc.hook_add(unicorn.UC_HOOK_MEM_UNMAPPED | unicorn.UC_HOOK_MEM_PROT, self._on_bad_access)
        uc.hook_add(unicorn.UC_HOOK_INTR, self._on_intr)
        for addr in self.handlers:
            uc.hook_add(unicorn.UC_HOOK_CODE, self._on_handler, begin=addr, end=addr)

    def _fail(self, message):
        if self.error is None:
            self.error = message
        self.uc.emu_stop()

    def _on_block(self, uc, address, size, _):
        if self.pend_extra and address != self.pend_fall:
            self.cycles += self.pend_extra
        block = self.blocks.get(address << 16 | size)
        if block is None:
            block = self._classify(address, size)
            if block is None:
                return
        self.block = block
        self.block_c0 = self.cycles
        self.block_i0 = self.insns
        self.cycles += block.cycles
        self.insns += block.ninsn
        self.pend_extra = block.taken_extra
        self.pend_fall = block.fallthrough
        if self.insns > self.max_insns:
            self._fail(f"instruction limit exceeded: more than {self.max_insns} instructions "
                       f"(pc {address:#x})")
        elif self.cycles > self.max_cycles:
            self._fail(f"cycle limit exceeded: more than {self.max_cycles} cycles (pc {address:#x})")

    def _classify(self, address, size):
        code = bytes(self.uc.mem_read(address, size))
        insns = list(self.md.disasm(code, address))
        decoded = sum(i.size for i in insns)
        if decoded != size:
            self._fail(f"invalid instruction at {address + decoded:#x} "
                       f"({code[decoded:decoded + 4].hex()})")
            return None
        try:
            block = model.build_block(self.core, insns, FLASH_BASE + FLASH_SIZE, self.wait_states)
        except model.Unmodelled as e:
            self._fail(f"unsupported instruction for {self.cpu} at {e}")
            return None
        block.fallthrough = address + size
        for addr, rn, rm, signed in block.divs:
            self.div_ops[addr] = (rn, rm, signed)
            if addr not in self.div_hooked:
                # Missed by the scan: hook it and drop the translated block so
                # that later runs see the hook; this run is charged 2 cycles.
                self._hook_div(addr)
                self.uc.ctl_remove_cache(address, address + size)
        self.blocks[address << 16 | size] = block
        return block

    def _on_div(self, uc, address, size, _):
        ops = self.div_ops.get(address)
        if ops is None:  # not yet classified (first run of its block)
            insn = next(self.md.disasm(bytes(uc.mem_read(address, 4)), address))
            ops = (insn.operands[1].reg, insn.operands[2].reg, insn.mnemonic.startswith("sdiv"))
            self.div_ops[address] = ops
        rn, rm, signed = ops
        # The block charged the minimum (2); add the rest, to the block's base
        # too so that a MARK later in the same block sees it.
        extra = model.div_cycles(uc.reg_read(_CS2UC[rn]), uc.reg_read(_CS2UC[rm]), signed) - 2
        self.cycles += extra
        self.block_c0 += extra

    def _counts_at(self, pc):
        entry = self.block.prefix.get(pc) if self.block else None
        if entry is None:
            return None
        return self.block_c0 + entry[0], self.block_i0 + entry[1]

    def _on_lab_write(self, uc, access, address, size, value, _):
        pc = uc.reg_read(uac.UC_ARM_REG_PC)
        counts = self._counts_at(pc)
        if counts is None:
            self._fail(f"internal: store at pc {pc:#x} not in the current block")
            return
        value &= 0xFF
        if address == REG_MARK:
            self.out.write(f"mark {value} {counts[0]} {counts[1]}\n")
        elif address == REG_PUTC:
            if value == 0x0A:
                self._flush_line()
            elif value != 0x0D:
                self.line.append(value)
        elif address == REG_EXIT:
            self._flush_line()
            self.out.write(f"exit {value} {counts[0]} {counts[1]}\n")
            self.exit_code = value
            uc.emu_stop()
        else:
            self._fail(f"write to unknown lab register {address:#x} at pc {pc:#x}")

    def _flush_line(self):
        if self.line:
            text = self.line.decode("utf-8", "backslashreplace")
            self.out.write(f"out {text}\n")
            self.line.clear()

    def _on_bad_access(self, uc, access, address, size, value, _):
        kinds = {
            unicorn.UC_MEM_READ_UNMAPPED: "read of unmapped memory",
            unicorn.UC_MEM_WRITE_UNMAPPED: "write to unmapped memory",
            unicorn.UC_MEM_FETCH_UNMAPPED: "execution of unmapped memory",
            unicorn.UC_MEM_WRITE_PROT: "write to read-only memory (flash)",
            unicorn.UC_MEM_READ_PROT: "read of protected memory",
            unicorn.UC_MEM_FETCH_PROT: "execution of non-executable memory",
        }
        pc = uc.reg_read(uac.UC_ARM_REG_PC)
        self.fault = (f"{kinds.get(access, 'bad memory access')} at {address:#010x} "
                      f"({size} bytes, pc {pc:#x})")
        return False

    def _on_intr(self, uc, intno, _):
        pc = uc.reg_read(uac.UC_ARM_REG_PC)
        names = {1: "undefined instruction", 2: "SVC", 3: "prefetch abort",
                 4: "data abort: unaligned (ARMv6-M) or faulting access", 7: "BKPT",
                 6: "exception exit"}
        self._fail(f"CPU exception {intno} ({names.get(intno, 'exception')}) at pc {pc:#x}")

    def _on_handler(self, uc, address, size, _):
        names = "/".join(f"{EXCEPTION_NAMES[n]} (vector {n})" for n in self.handlers[address])
        self._fail(f"exception handler entered at {address:#x}: {names}")

    # ---- running ------------------------------------------------------------

    def run(self):
        """Run to EXIT or to an error; returns the process exit status."""
        uc = self.uc
        uc.reg_write(uac.UC_ARM_REG_SP, self.initial_sp)
        uc.reg_write(uac.UC_ARM_REG_MSP, self.initial_sp)
        try:
            uc.emu_start(self.reset | 1, 0xFFFFFFFF)
        except unicorn.UcError as e:
            pc = uc.reg_read(uac.UC_ARM_REG_PC)
            if self.error is None:
                if self.fault is not None:
                    self.error = self.fault
                elif e.errno == unicorn.UC_ERR_INSN_INVALID:
                    word = bytes(uc.mem_read(pc, 4)) if self._mapped(pc, 4) else b""
                    self.error = (f"invalid instruction for {self.cpu} at pc {pc:#x} "
                                  f"({word[:2][::-1].hex()} {word[2:][::-1].hex()})")
                else:
                    self.error = f"emulation error at pc {pc:#x}: {e}"
        if self.exit_code is not None and self.error is None:
            self.out.flush()
            return 0
        self._flush_line()
        self.out.flush()
        if self.error is None:
            self.error = f"stopped without an EXIT write (pc {uc.reg_read(uac.UC_ARM_REG_PC):#x})"
        sys.stderr.write(f"armsim: {self.error}\n")
        return 3


def _cs_to_uc():
    """capstone ARM register id -> unicorn register id (r0..r12, sp, lr, pc)."""
    from capstone import arm_const as cac
    table = {}
    for i in range(13):
        table[getattr(cac, f"ARM_REG_R{i}")] = getattr(uac, f"UC_ARM_REG_R{i}")
    table[cac.ARM_REG_SP] = uac.UC_ARM_REG_SP
    table[cac.ARM_REG_LR] = uac.UC_ARM_REG_LR
    table[cac.ARM_REG_PC] = uac.UC_ARM_REG_PC
    return table


_CS2UC = _cs_to_uc()


def main(argv=None):
    ap = argparse.ArgumentParser(description="Run a Cortex-M lab firmware and count cycles.")
    ap.add_argument("--cpu", required=True, choices=sorted(CPUS))
    ap.add_argument("--flash-wait-states", type=int, default=0, metavar="W",
                    help="cycles added to every instruction fetched from flash (default 0)")
    ap.add_argument("--max-instructions", type=int, default=200_000_000, metavar="N")
    ap.add_argument("--max-cycles", type=int, default=0, metavar="N", help="0 = no limit")
    ap.add_argument("--ram-size", type=lambda s: int(s, 0), default=None,
                    help="RAM size in bytes (default: 32 KiB on M0+, 256 KiB on M4)")
    ap.add_argument("elf")
    args = ap.parse_args(argv)
    if args.flash_wait_states < 0:
        ap.error("--flash-wait-states must be >= 0")
    try:
        sim = Sim(args.cpu, args.elf, args.flash_wait_states, args.max_instructions,
                  args.max_cycles, args.ram_size)
    except LoadError as e:
        sys.stderr.write(f"armsim: {e}\n")
        return 2
    return sim.run()


if __name__ == "__main__":
    sys.exit(main())
