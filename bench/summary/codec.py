"""The codecs on one thread: GB/s of float32 per direction and
the speed against a plain copy of the same tensor in the same run."""

from .report import Summary, table
from .stats import median, num, percentile, round_ratios, spread, times
from .svg import Panel

# Each mode against the copy that allocates as it does: a result of its
# own ("copy": clone) or a tensor it was given ("copy_into": copy_).
BASELINES = {"copy": "copy", "copy_into": "copy_into",
             "fp16_quantize": "copy", "fp16_dequantize": "copy",
             "bfp16_quantize": "copy", "bfp16_dequantize": "copy",
             "fp16_quantize_into": "copy_into",
             "fp16_dequantize_into": "copy_into",
             "bfp16_quantize_into": "copy_into",
             "bfp16_dequantize_into": "copy_into",
             "aten_clamp_to_fp16": "copy",
             "aten_to_fp16": "copy", "aten_from_fp16": "copy_into",
             "aten_to_bf16": "copy", "aten_from_bf16": "copy_into"}
GOAL = 0.5  # of the copy's speed


def summarise(samples):
    summary = Summary("Codecs: GB/s against a copy", "codecs")
    for mib in samples.distinct("mib"):
        gigabytes = float(mib) * 2**20 / 1e9
        rows, labels, points = [], [], []
        for mode in samples.distinct("mode", mib=mib, metric="step_us"):
            us = samples.values(mode=mode, mib=mib, metric="step_us")
            base = BASELINES.get(mode, "copy")
            base_us = samples.values(mode=base, mib=mib, metric="step_us")
            speed = median(base_us) / median(us)
            per_round = [1 / r for r in round_ratios(
                samples.where(mode=mode, mib=mib, metric="step_us"),
                samples.where(mode=base, mib=mib, metric="step_us"))]
            goal = "" if mode == base else (
                "yes" if speed >= GOAL else "no")
            rows.append([mode, num(median(us) / 1000), spread(us, 1e-3),
                         num(gigabytes / (median(us) / 1e6)), base,
                         times(speed), spread(per_round), goal])
            labels.append(mode)
            gbs = [gigabytes / (u / 1e6) for u in us]
            points.append((median(gbs), percentile(gbs, 0.1),
                           percentile(gbs, 0.9)))
        summary.sections.append((f"{mib} MiB of float32, one thread", table(
            ["mode", "ms", "p10–p90", "GB/s of float32", "against",
             "speed / against", "per round p10–p90",
             f"at least {GOAL}x"], rows)))
        panel = Panel(f"{mib} MiB of float32, one thread", "mode",
                      "GB/s of float32 (median, p10–p90)", labels,
                      lines=False)
        panel.add("GB/s", points)
        summary.panels.append(panel)
    return summary
