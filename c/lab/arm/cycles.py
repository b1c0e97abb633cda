"""Per-instruction cycle model of the Cortex-M0+ and the Cortex-M4 for armsim.

Each executed instruction is decoded once (capstone), put in a class, and
charged the cycles of that class in its core's table below. The counts are the
ones of the ARM Technical Reference Manuals, for a system with zero wait
states:

  Cortex-M0+: ARM DDI 0484, "Cortex-M0+ Technical Reference Manual",
              section 3.3 (instruction set summary with cycle counts).
  Cortex-M4:  ARM DDI 0439, "Cortex-M4 Technical Reference Manual",
              section 3.3.1 (Table 3-1, processor instruction set summary)
              and 3.3.2 (load/store timings).

Abbreviations as in the TRMs: N = number of registers transferred, P = cycles
of a pipeline refill after a taken branch.

What the model ignores, for both cores (see CYCLES.md for the error these
cause): bus contention and wait states of RAM and peripherals, unaligned
accesses (every access is charged as aligned), interrupts and exception entry,
the M0+ single-cycle I/O port (the lab MMIO registers are charged as ordinary
stores), the alignment and width of a branch target (P is a constant), and the
condition of instructions inside an IT block (a skipped instruction is charged
as if it executed; only branches that end a block are charged by outcome).

Flash wait states (armsim --flash-wait-states W): W cycles are added to every
instruction that lies in flash. This is a deliberately plain model of a
fetch-per-instruction system without cache or prefetch buffer; real parts
fetch 32 or 64 bits at a time and have caches (the nRF52840 has one, the
SAMD21 needs 1 wait state at 48 MHz), so with W > 0 the result is an upper
bound, not a prediction.
"""

from dataclasses import dataclass

# ---- instruction classes ------------------------------------------------

ALU = "alu"  # data processing, moves, shifts, extends, bit fields, ADR, CLZ, REV
ALU_PC = "alu_pc"  # MOV PC, Rm / ADD PC, Rm (a branch)
MUL = "mul"  # MUL(S), MLA, MLS, SMULL, UMULL, SMLAL, UMLAL, DSP multiplies
DIV = "div"  # SDIV, UDIV (M4); cost from the operand values at run time
LOAD = "load"  # LDR, LDRB, LDRH, LDRSB, LDRSH, LDREX*, literal loads
STORE = "store"  # STR, STRB, STRH, STREX*
LOAD_PC = "load_pc"  # LDR PC, [...] (a branch)
LOAD2 = "load2"  # LDRD
STORE2 = "store2"  # STRD
LDM = "ldm"  # LDM, POP without PC
LDM_PC = "ldm_pc"  # LDM, POP with PC (a return)
STM = "stm"  # STM, PUSH
B = "b"  # B (unconditional, immediate target)
BCC = "bcc"  # B<cond> (conditional, immediate target)
CBZ = "cbz"  # CBZ, CBNZ (conditional, immediate target)
BL = "bl"  # BL (immediate target)
BX = "bx"  # BX, BLX Rm (register target)
TB = "tb"  # TBB, TBH
IT = "it"  # IT
BARRIER = "barrier"  # DMB, DSB
ISB = "isb"
MRS = "mrs"
MSR = "msr"
HINT = "hint"  # NOP, YIELD, WFI, WFE, SEV, CPSID, CPSIE, CLREX
TRAP = "trap"  # SVC, BKPT, UDF: raise an exception; armsim stops there

# Classes whose instruction writes the PC (and so ends a block).
BRANCHES = frozenset({ALU_PC, LOAD_PC, LDM_PC, B, BCC, CBZ, BL, BX, TB})


@dataclass(frozen=True)
class Core:
    name: str
    # cycles per class that do not depend on N or on the branch outcome
    fixed: dict
    # LDM/STM/PUSH/POP: 1 + N; with PC loaded: pop_pc_base + N
    pop_pc_base: int
    pop_pc_counts_pc: bool  # whether N counts the PC itself
    # branches: (taken, not taken)
    branch: dict
    # M4: a single load/store right after a single load costs 1 (TRM 3.3.2)
    pipelined_ldst: bool
    # M4: IT after a 16-bit instruction is folded into it (0 cycles)
    it_folding: bool
    # M4: SDIV/UDIV early termination (see div_cycles)
    has_div: bool


# ---- Cortex-M0+ (ARMv6-M, 2-stage pipeline; ARM DDI 0484 section 3.3) ----
#
#  class     TRM cycles                     model  notes
#  ALU       1                              1      all 16-bit data processing
#  ALU_PC    ADD PC,Rm / MOV PC,Rm: 2       2
#  MUL       MULS: 1 or 32                  1      the fast (single-cycle)
#                                                  multiplier, as on SAMD21; the
#                                                  32-cycle iterative option
#                                                  is an implementation choice
#  LOAD      LDR*: 2 (1 on the I/O port)    2      I/O port not modelled
#  STORE     STR*: 2 (1 on the I/O port)    2      likewise
#  LDM/STM   1 + N                          1+N    also PUSH and POP
#  LDM_PC    POP {.., PC}: 3 + N            3+N    N = registers other than PC
#                                                  (= 1 + N' + 1 with N' counting
#                                                  the PC and a 1-cycle refill)
#  B         2                              2
#  BCC       taken 2, not taken 1           2 / 1
#  BL        3                              3      (a 32-bit instruction)
#  BX/BLX    2                              2
#  DMB/DSB/ISB 3                            3
#  MRS/MSR   3                              3
#  hints     NOP, YIELD, SEV, CPS: 1        1      WFI/WFE: the wait ignored
#  TRAP      SVC, BKPT, UDF                 0      they raise an exception, which
#                                                  armsim reports as an error (no
#                                                  exception entry is modelled)
CORTEX_M0PLUS = Core(
    name="cortex-m0plus",
    fixed={ALU: 1, ALU_PC: 2, MUL: 1, LOAD: 2, STORE: 2, BARRIER: 3, ISB: 3,
           MRS: 3, MSR: 3, HINT: 1, TRAP: 0},
    pop_pc_base=3,
    pop_pc_counts_pc=False,
    branch={B: (2, 2), BCC: (2, 1), BL: (3, 3), BX: (2, 2), ALU_PC: (2, 2)},
    pipelined_ldst=False,
    it_folding=False,
    has_div=False,
)

# ---- Cortex-M4 (ARMv7E-M, 3-stage pipeline; ARM DDI 0439 3.3.1, 3.3.2) ----
#
# P (pipeline refill) is 1..3 in the TRM, "depending on the alignment and
# width of the target instruction, and whether the processor manages to
# speculate the address early". The model uses two constants:
#   P_DIRECT = 1 for branches whose target is in the instruction (B, B<cond>,
#                BL, CBZ/CBNZ): the fetch unit can speculate the target;
#   P_INDIRECT = 2 for targets that come from a register or a load (BX, BLX,
#                MOV/ADD PC, LDR PC, POP {..,PC}, TBB/TBH).
# Error: +-1 per taken branch (a 32-bit target at an odd halfword costs more).
P_DIRECT = 1
P_INDIRECT = 2
#
#  class     TRM cycles                     model
#  ALU       1                              1     incl. MOVW/MOVT, bit fields,
#                                                 saturation, DSP SIMD, CLZ
#  ALU_PC    MOV PC / ADD PC: 1 + P         3     (P_INDIRECT)
#  MUL       MUL, MLA, MLS: 1;              1     the M4 multiplier is single
#            SMULL/UMULL/SMLAL/UMLAL: 1           cycle for 32x32->64 too
#                                                 (the M3's 3..7 is not the M4's)
#  DIV       SDIV/UDIV: 2..12               2..12 early termination; see
#                                                 div_cycles for the formula
#  LOAD      LDR*: 2                        2, or 1 when pipelined (below)
#  STORE     STR*: 2                        2, or 1 when pipelined (below)
#  LOAD_PC   LDR PC: 2 + P                  4     (P_INDIRECT)
#  LOAD2     LDRD: 1 + N (N = 2)            3     never pipelined
#  STORE2    STRD: 1 + N (N = 2)            3
#  LDM/STM   1 + N                          1+N   also PUSH and POP
#  LDM_PC    POP/LDM with PC: 1 + N + P     1+N+2 N counts the PC (TRM: "N:
#                                                 including PC or LR")
#  B, BL     1 + P                          2     (P_DIRECT)
#  BCC, CBZ  taken 1 + P, not taken 1       2 / 1
#  BX, BLX   1 + P                          3     (P_INDIRECT)
#  TB        TBB/TBH: 2 + P                 4     (P_INDIRECT)
#  IT        1, can be folded               0 after a 16-bit instruction of
#                                                 the same block, else 1
#  DMB/DSB   1 + B (B >= 0)                 1     barrier wait ignored
#  ISB       1 + B (B >= P)                 1 + P_INDIRECT = 3
#  MRS/MSR   1                              1
#  hints     NOP, YIELD, SEV, CPS, CLREX: 1 1     WFI/WFE: the wait ignored;
#                                                 PLD/PLI (newlib memcpy) as a NOP
#  TRAP      SVC, BKPT, UDF                 0     armsim stops with an error
#
# Load/store pipelining (TRM 3.3.2: neighbouring single loads and stores can
# overlap the address phase of one with the data phase of the other; STR can be
# pipelined after an LDR, nothing is pipelined after a store; LDRD/STRD/LDM/
# STM are not pipelined): a single LOAD or STORE that directly follows a single
# LOAD (same block, nothing in between) costs 1 instead of 2, unless its
# address (base or index register) is the register the previous load wrote.
# Pipelining across a block boundary is not modelled (blocks start at branch
# targets, where the pipeline was refilled anyway).
#
# Floating point: the lab builds the M4 firmware soft-float (-mfloat-abi=soft),
# so VFP instructions are not modelled; armsim stops with an error on one.
CORTEX_M4 = Core(
    name="cortex-m4",
    fixed={ALU: 1, ALU_PC: 1 + P_INDIRECT, MUL: 1, DIV: 2, LOAD: 2, STORE: 2,
           LOAD_PC: 2 + P_INDIRECT, LOAD2: 3, STORE2: 3, BARRIER: 1,
           ISB: 1 + P_INDIRECT, MRS: 1, MSR: 1, HINT: 1, IT: 1, TRAP: 0},
    pop_pc_base=1 + P_INDIRECT,
    pop_pc_counts_pc=True,
    branch={B: (1 + P_DIRECT, 1 + P_DIRECT), BCC: (1 + P_DIRECT, 1),
            CBZ: (1 + P_DIRECT, 1), BL: (1 + P_DIRECT, 1 + P_DIRECT),
            BX: (1 + P_INDIRECT, 1 + P_INDIRECT),
            TB: (2 + P_INDIRECT, 2 + P_INDIRECT),
            ALU_PC: (1 + P_INDIRECT, 1 + P_INDIRECT),
            LOAD_PC: (2 + P_INDIRECT, 2 + P_INDIRECT)},
    pipelined_ldst=True,
    it_folding=True,
    has_div=True,
)

CORES = {c.name: c for c in (CORTEX_M0PLUS, CORTEX_M4)}


def div_cycles(dividend: int, divisor: int, signed: bool) -> int:
    """Cycles of an M4 SDIV/UDIV with these (32-bit register) operands.

    The TRM gives 2..12 cycles and says the divider terminates early
    depending on the leading zeros/ones of the operands; the exact algorithm is
    not published. The approximation: 2 cycles when the quotient is 0 (divisor
    0, or |dividend| < |divisor|); otherwise 2 + ceil(10 * q / 32) where q is
    the bit length of the quotient (bit length of |dividend| minus that of
    |divisor|, plus one), so a 1-bit quotient costs 3 and a 32-bit one 12.
    """
    dividend &= 0xFFFFFFFF
    divisor &= 0xFFFFFFFF
    if signed:
        if dividend & 0x80000000:
            dividend = (-dividend) & 0xFFFFFFFF
        if divisor & 0x80000000:
            divisor = (-divisor) & 0xFFFFFFFF
    if divisor == 0 or dividend < divisor:
        return 2
    q = dividend.bit_length() - divisor.bit_length() + 1
    return 2 + (10 * q + 31) // 32


# ---- classification (capstone instruction -> class, N) ---------------------

_ALU_NAMES = frozenset("""
adc add adr and asr bfc bfi bic clz cmn cmp eor lsl lsr mov movt movw mvn neg
orn orr rbit rev rev16 revsh ror rrx rsb sbc sbfx sel ssat ssat16
sub sxtab sxtab16 sxtah sxtb sxtb16 sxth teq tst ubfx usat usat16 uxtab uxtab16
uxtah uxtb uxtb16 uxth qadd qadd16 qadd8 qasx qdadd qdsub qsax qsub qsub16 qsub8
sadd16 sadd8 sasx shadd16 shadd8 shasx shsax shsub16 shsub8 ssax ssub16 ssub8
uadd16 uadd8 uasx uhadd16 uhadd8 uhasx uhsax uhsub16 uhsub8 uqadd16 uqadd8
uqasx uqsax uqsub16 uqsub8 usad8 usada8 usax usub16 usub8 pkhbt pkhtb
""".split())
_MUL_NAMES = frozenset("""
mul mla mls smull umull smlal umlal umaal smlabb smlabt smlatb smlatt smlad
smladx smlalbb smlalbt smlaltb smlaltt smlald smlaldx smlawb smlawt smlsd
smlsdx smlsld smlsldx smmla smmlar smmls smmlsr smmul smmulr smuad smuadx
smulbb smulbt smultb smultt smulwb smulwt smusd smusdx
""".split())
_LOAD_NAMES = frozenset(
    "ldr ldrb ldrh ldrsb ldrsh ldrt ldrbt ldrht ldrsbt ldrsht ldrex ldrexb ldrexh".split())
_STORE_NAMES = frozenset(
    "str strb strh strt strbt strht strex strexb strexh".split())
_HINT_NAMES = frozenset("hint nop yield wfi wfe sev cps clrex pld pli".split())

ARM_REG_PC = 11  # capstone.arm.ARM_REG_PC
_ARM_OP_REG = 1
_ARM_OP_MEM = 3
_ARM_CC_AL = 15
_ARM_CC_INVALID = 0


class Unmodelled(Exception):
    """An instruction the model has no row for (VFP, SVC, BKPT, UDF, ...)."""


def classify(insn):
    """(class, N, conditional) of one capstone instruction (detail mode)."""
    name = insn.insn_name()
    if name in ("movs", "subs"):  # capstone's own ids for these two forms
        name = name[:-1]
    ops = insn.operands
    cond = insn.cc not in (_ARM_CC_AL, _ARM_CC_INVALID)
    if name in _LOAD_NAMES:
        if ops[0].type == _ARM_OP_REG and ops[0].reg == ARM_REG_PC:
            return LOAD_PC, 1, cond
        return LOAD, 1, cond
    if name in _STORE_NAMES:
        return STORE, 1, cond
    if name in _ALU_NAMES:
        if ops and ops[0].type == _ARM_OP_REG and ops[0].reg == ARM_REG_PC:
            return ALU_PC, 1, cond
        return ALU, 1, cond
    if name == "b":
        return (BCC if cond else B), 1, cond
    if name == "bl":
        return BL, 1, cond
    if name in ("bx", "blx"):
        return BX, 1, cond
    if name in ("cbz", "cbnz"):
        return CBZ, 1, True
    if name in ("pop", "ldm", "ldmdb"):
        regs = [o.reg for o in ops if o.type == _ARM_OP_REG]
        if name != "pop":
            regs = regs[1:]  # the base register
        if ARM_REG_PC in regs:
            return LDM_PC, len(regs), cond
        return LDM, len(regs), cond
    if name in ("push", "stm", "stmdb"):
        n = sum(1 for o in ops if o.type == _ARM_OP_REG)
        if name != "push":
            n -= 1
        return STM, n, cond
    if name in _MUL_NAMES:
        return MUL, 1, cond
    if name in ("sdiv", "udiv"):
        return DIV, 1, cond
    if name == "ldrd":
        return LOAD2, 2, cond
    if name == "strd":
        return STORE2, 2, cond
    if name in ("tbb", "tbh"):
        return TB, 1, cond
    if name == "it":
        return IT, 1, False
    if name in ("dmb", "dsb"):
        return BARRIER, 1, cond
    if name == "isb":
        return ISB, 1, cond
    if name == "mrs":
        return MRS, 1, cond
    if name == "msr":
        return MSR, 1, cond
    if name in _HINT_NAMES:
        return HINT, 1, cond
    if name in ("svc", "bkpt", "udf"):
        return TRAP, 1, cond
    raise Unmodelled("no row in the cycle model" +
                     ("; VFP: build soft-float" if name.startswith("v") else ""))


def _mem_regs(insn):
    """Registers that form the address of a load/store."""
    regs = set()
    for o in insn.operands:
        if o.type == _ARM_OP_MEM:
            if o.mem.base:
                regs.add(o.mem.base)
            if o.mem.index:
                regs.add(o.mem.index)
    return regs


def instruction_cycles(core: Core, cls: str, n: int, prev):
    """(cycles if not taken / not a branch, cycles if taken) of one instruction.

    prev is (class, size, destination register) of the previous instruction
    of the same block, or None at the start of a block; it drives the M4's
    load/store pipelining and IT folding.
    """
    if cls in (LDM, STM):
        c = 1 + n
        return c, c
    if cls == LDM_PC:
        c = core.pop_pc_base + (n if core.pop_pc_counts_pc else n - 1)
        return c, c
    if cls in core.branch:
        taken, not_taken = core.branch[cls]
        return not_taken, taken
    if cls == IT and core.it_folding and prev is not None and prev[1] == 2 and prev[0] != IT:
        return 0, 0
    if cls not in core.fixed:
        raise Unmodelled(f"not in the {core.name} instruction set")
    c = core.fixed[cls]
    return c, c


@dataclass
class Block:
    """The pre-classified instructions of one translation block."""
    cycles: int  # all instructions, the last one charged as not taken
    ninsn: int
    taken_extra: int  # added when the block's conditional last branch is taken
    fallthrough: int  # address after the block (the not-taken successor)
    prefix: dict  # address -> (cycles, instructions) up to and including it
    divs: list  # [(address, rn, rm, signed)] of SDIV/UDIV in the block


def build_block(core: Core, insns, flash_end: int, wait_states: int) -> Block:
    """Charge a list of capstone instructions (one block, in order)."""
    total = 0
    count = 0
    prefix = {}
    divs = []
    prev = None
    taken_extra = 0
    for insn in insns:
        try:
            cls, n, cond = classify(insn)
            not_taken, taken = instruction_cycles(core, cls, n, prev)
            if cls == DIV and not core.has_div:
                raise Unmodelled(f"no divider on {core.name}")
        except Unmodelled as e:
            raise Unmodelled(f"{insn.address:#x}: {insn.mnemonic} {insn.op_str} ({e})") from None
        if core.pipelined_ldst and cls in (LOAD, STORE) and prev is not None \
                and prev[0] == LOAD and prev[2] not in _mem_regs(insn):
            not_taken = taken = 1
        if cls == DIV:
            ops = insn.operands
            divs.append((insn.address, ops[1].reg, ops[2].reg, insn.insn_name() == "sdiv"))
        c = not_taken
        if cls in BRANCHES:
            if cond:
                # B<cond>, CBZ, or a branch made conditional by IT (BXEQ,
                # POPNE {.., PC}): when its condition fails it costs what a
                # not-taken B<cond> costs (1 on both cores)
                not_taken = c = core.branch[BCC][1]
                taken_extra = taken - not_taken
            else:
                c = taken
                taken_extra = 0
        else:
            taken_extra = 0
        if wait_states and insn.address < flash_end:
            c += wait_states
        total += c
        count += 1
        prefix[insn.address] = (total, count)
        dest = insn.operands[0].reg if cls == LOAD and insn.operands else None
        prev = (cls, insn.size, dest)
    return Block(total, count, taken_extra, 0, prefix, divs)
