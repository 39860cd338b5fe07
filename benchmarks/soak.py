#!/usr/bin/python3
"""soak.py — `medley watch` under churn for a long time (benchmarks/soak.sh runs it).

A seeded script drops, replaces, renames, truncates and deletes real media (the test-data cache's photos and
audio) in a watched folder; the watch is stopped every few minutes, by SIGTERM or SIGKILL at random, and started
again; once (with --full-disk, as root) the export root, a tmpfs of its own, is filled to the last byte for a
while. Then the churn stops, a last watch catches up and is stopped, and the result is checked:

- every input there at the end has exactly one manifest record, and each record's input is there;
- every succeeded record's output exists, is read by the field's readers (vipsheader: JPEG ≤ 256 px; ffprobe:
  FLAC, duration within 1/50 s of the input's as ffprobe reads it) and is the run state's row for that input;
- a truncated input either failed with a reason or its output is readable;
- no temporary file is left in the export root;
- the watch's RSS, sampled every 2 s, per life (first and last life's peak, and every life's last sample).

Prints a summary table (Markdown) and exits 1 when a check fails.
"""
import argparse, json, os, random, shutil, signal, sqlite3, subprocess, sys, time

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--medley", required=True)
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--restart-every", type=float, default=180, help="seconds between stops (jittered ±30 %%)")
    ap.add_argument("--full-disk", action="store_true", help="fill the export root (a tmpfs; root only) once, for 20 s")
    ap.add_argument("--photos", required=True)
    ap.add_argument("--audio", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    photos = sorted(os.path.join(args.photos, n) for n in os.listdir(args.photos) if n.lower().endswith(".jpg"))
    sounds = sorted(os.path.join(d, n) for d, _, files in os.walk(args.audio) for n in files
                    if n.lower().endswith((".wav", ".oga", ".flac")) and os.path.getsize(os.path.join(d, n)) < 8_000_000)
    if not photos or not sounds:
        sys.exit("soak: no photos or audio in the test-data cache (scripts/test-data.sh)")
    work = args.work
    inbox, out = os.path.join(work, "in"), os.path.join(work, "out")
    os.makedirs(inbox, exist_ok=True)
    os.makedirs(out, exist_ok=True)
    mounted = False
    if args.full_disk:
        if os.geteuid() != 0:
            print("soak: --full-disk needs root (a tmpfs export root); left out", file=sys.stderr)
            args.full_disk = False
        else:
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512m", "soak", out], check=True)
            mounted = True
    pipeline = os.path.join(work, "soak.yaml")
    with open(pipeline, "w") as f:
        f.write(f"""version: 1
jobs:
  - name: thumbs
    ingest: {{ from: [{inbox}], media: [image] }}
    filters: [ {{ resize: {{ width: 256, height: 256 }} }} ]
    export: {{ to: {out}/thumbs, format: jpeg, quality: 80, name: "{{relpath}}/{{stem}}.{{ext}}" }}
  - name: sound
    ingest: {{ from: [{inbox}], media: [anyAudio] }}
    transcode: {{ AVFormatIDKey: kAudioFormatFLAC, AVSampleRateKey: 22050 }}
    export: {{ to: {out}/sound, name: "{{relpath}}/{{stem}}.flac" }}
""")

    counts = dict(dropped=0, replaced=0, renamed=0, truncated=0, deleted=0, sigterm=0, sigkill=0, lives=0)
    lives = []  # per life: RSS samples in kB
    names = set()
    truncated = set()
    serial = 0

    def new_name(kind):
        nonlocal serial
        serial += 1
        folder = rng.choice(["", "a", "a/b", "c"])
        stem = f"{kind}-{serial:05d}"
        return os.path.join(folder, stem)

    def put(source, rel, how):
        """Writes `source` to in/rel: in place (closed after writing) or as a hidden file renamed in."""
        target = os.path.join(inbox, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if how == "rename":
            hidden = os.path.join(os.path.dirname(target), "." + os.path.basename(target) + ".part")
            shutil.copyfile(source, hidden)
            os.replace(hidden, target)
        else:
            shutil.copyfile(source, target)

    def churn():
        action = rng.choices(["drop", "replace", "rename", "truncate", "delete"], [6, 2, 2, 1, 1])[0]
        if action == "drop" or not names:
            if rng.random() < 0.5:
                source, ext = rng.choice(photos), ".jpg"
            else:
                source = rng.choice(sounds)
                ext = os.path.splitext(source)[1]
            rel = new_name("p" if ext == ".jpg" else "s") + ext
            put(source, rel, rng.choice(["write", "rename"]))
            names.add(rel)
            truncated.discard(rel)
            counts["dropped"] += 1
            return
        rel = rng.choice(sorted(names))
        path = os.path.join(inbox, rel)
        if action == "replace":
            ext = os.path.splitext(rel)[1]
            pool = photos if ext == ".jpg" else [s for s in sounds if s.endswith(ext)] or sounds
            source = rng.choice(pool)
            if os.path.splitext(source)[1] != ext:
                return
            put(source, rel, "rename")
            truncated.discard(rel)
            counts["replaced"] += 1
        elif action == "rename":
            ext = os.path.splitext(rel)[1]
            new = new_name("r") + ext
            os.makedirs(os.path.dirname(os.path.join(inbox, new)), exist_ok=True)
            os.rename(path, os.path.join(inbox, new))
            names.discard(rel)
            names.add(new)
            if rel in truncated:
                truncated.discard(rel)
                truncated.add(new)
            counts["renamed"] += 1
        elif action == "truncate":
            size = os.path.getsize(path)
            with open(path, "r+b") as f:
                f.truncate(max(1, size // 2))
            truncated.add(rel)
            counts["truncated"] += 1
        elif action == "delete":
            os.remove(path)
            names.discard(rel)
            truncated.discard(rel)
            counts["deleted"] += 1

    def events():  # each life's own file (--events truncates what it names)
        return os.path.join(work, f"events-{counts['lives']}.jsonl")
    log = open(os.path.join(work, "watch.log"), "ab")

    def start():
        counts["lives"] += 1
        lives.append([])
        return subprocess.Popen([args.medley, "watch", pipeline, "--settle", "1s", "--events", events()],
                                stdout=log, stderr=log, start_new_session=True)

    def rss(proc):
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def log_tail():
        log.flush()
        return open(os.path.join(work, "watch.log"), errors="replace").read().splitlines()[-15:]

    def stop(proc, kill):
        if proc.poll() is not None:
            return
        proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        status = proc.wait()
        if not kill and status == -signal.SIGTERM:
            # Ended by the signal itself: it came as the watch was stopping on its own (a full disk) or before
            # it had set its handler. A clean stop to a supervisor; the checks at the end judge the outputs.
            counts["SIGTERM taken by default"] = counts.get("SIGTERM taken by default", 0) + 1
        elif not kill and status != 0:
            raise SystemExit(f"soak: the watch exited {status} after SIGTERM; the end of its log:\n" + "\n".join(log_tail()))
        counts["sigkill" if kill else "sigterm"] += 1

    begin = time.monotonic()
    end = begin + args.minutes * 60
    full_at = begin + args.minutes * 60 * rng.uniform(0.3, 0.6) if args.full_disk else None
    full_until = None
    filler = os.path.join(out, "filler")
    proc = start()
    next_stop = time.monotonic() + args.restart_every * rng.uniform(0.7, 1.3)
    next_sample = time.monotonic()
    while time.monotonic() < end:
        now = time.monotonic()
        churn()
        if now >= next_sample:
            value = rss(proc)
            if value:
                lives[-1].append(value)
            next_sample = now + 2
        if full_at and now >= full_at and full_until is None:
            # Fill the export root to its last byte: writes fail with ENOSPC until the filler goes.
            with open(filler, "wb") as f:
                try:
                    while True:
                        f.write(b"\0" * (1 << 20))
                        f.flush()
                except OSError:
                    pass
            full_until = now + 20
            counts["full disk"] = 1
        if full_until and now >= full_until and os.path.exists(filler):
            os.remove(filler)
        if proc.poll() is not None:
            # The watch stops itself on a full export disk (exit 1, "free space and start it again"); a
            # supervisor (systemd's Restart=on-failure) starts it again once there is space. Any other exit fails.
            tail = log_tail()
            if proc.returncode == 1 and any("is full" in line for line in tail):
                if os.path.exists(filler):
                    time.sleep(0.5)
                    continue
                counts["stopped by the full disk"] = counts.get("stopped by the full disk", 0) + 1
                proc = start()
                continue
            raise SystemExit(f"soak: the watch exited {proc.returncode} by itself; the end of its log:\n" + "\n".join(tail))
        if now >= next_stop:
            stop(proc, kill=rng.random() < 0.5)
            proc = start()
            next_stop = time.monotonic() + args.restart_every * rng.uniform(0.7, 1.3)
        time.sleep(rng.uniform(0.05, 1.0))
    if os.path.exists(filler):
        os.remove(filler)

    # The churn is over: stop, then a last watch catches up (its watchStarted comes after the catch-up pass),
    # is given time to settle the last arrivals, and is stopped by SIGTERM (the manifests are written then).
    stop(proc, kill=False)
    proc = start()
    while True:
        lines = open(events()).read().splitlines() if os.path.exists(events()) else []
        if any('"watchStarted"' in line for line in lines):
            break
        if proc.poll() is not None:
            raise SystemExit(f"soak: the last watch exited {proc.returncode} before its catch-up ended")
        time.sleep(0.5)
    value = rss(proc)
    if value:
        lives[-1].append(value)
    stop(proc, kill=False)
    counts["sigterm"] -= 1  # the last two stops are the check's, not the soak's

    failures = check(work, inbox, out, names, truncated)
    if mounted:
        subprocess.run(["umount", out])
    peaks = [max(l) for l in lives if l]
    print(f"| figure | value |\n|---|---:|")
    for key, value in counts.items():
        print(f"| {key} | {value} |")
    print(f"| inputs at the end | {len(names)} (truncated: {len(truncated)}) |")
    for key, value in failures["counts"].items():
        print(f"| {key} | {value} |")
    if peaks:
        print(f"| RSS peak, first life / last life (MB) | {peaks[0] / 1024:.0f} / {peaks[-1] / 1024:.0f} |")
        print(f"| RSS peak, all lives (MB) | {max(peaks) / 1024:.0f} |")
    for problem in failures["problems"][:40]:
        print("FAIL", problem, file=sys.stderr)
    sys.exit(1 if failures["problems"] else 0)


def ffprobe_duration(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                       capture_output=True, text=True)
    try:
        return float(r.stdout.strip())
    except ValueError:
        return None


def check(work, inbox, out, names, truncated):
    problems, counts = [], dict(outputs_verified=0, failed_items=0, stale_outputs=0)
    for job, root, ext in [("thumbs", "thumbs", ".jpg"), ("sound", "sound", ".flac")]:
        manifest = os.path.join(out, root, ".medley", f"manifest-{job}.jsonl")
        records = {}
        if os.path.exists(manifest):
            for line in open(manifest):
                r = json.loads(line)
                if r.get("status") == "ignored":
                    continue
                rel = os.path.relpath(r["input"], inbox)
                if rel in records:
                    problems.append(f"{job}: {rel} has two manifest records")
                records[rel] = r
        mine = {n for n in names if (n.endswith(".jpg")) == (job == "thumbs")}
        for rel in sorted(mine - set(records)):
            problems.append(f"{job}: {rel} is there but has no manifest record")
        for rel in sorted(set(records) - mine):
            problems.append(f"{job}: the manifest lists {rel}, which is gone")
        state = {}
        db = os.path.join(out, root, ".medley", "state.sqlite")
        if os.path.exists(db):
            con = sqlite3.connect(db)
            try:
                for input_, output in con.execute("SELECT input, output FROM items WHERE status = 'succeeded'"):
                    state[input_] = output
            except sqlite3.Error as e:
                problems.append(f"{job}: run state unreadable: {e}")
            con.close()
        for rel in sorted(mine & set(records)):
            r = records[rel]
            if r["status"] == "failed":
                counts["failed_items"] += 1
                if rel not in truncated:
                    problems.append(f"{job}: {rel} failed and is not truncated: {r.get('error')}")
                elif not r.get("error"):
                    problems.append(f"{job}: {rel} failed without a reason")
                continue
            output = r.get("output")
            if not output or not os.path.exists(output):
                problems.append(f"{job}: {rel}: output {output} missing")
                continue
            if state and state.get(r["input"]) != output:
                problems.append(f"{job}: {rel}: the run state's output {state.get(r['input'])} is not the manifest's {output}")
            if job == "thumbs":
                w = subprocess.run(["vipsheader", "-f", "width", output], capture_output=True, text=True)
                h = subprocess.run(["vipsheader", "-f", "height", output], capture_output=True, text=True)
                if w.returncode or h.returncode or max(int(w.stdout), int(h.stdout)) > 256:
                    problems.append(f"{job}: {rel}: {output} is not a JPEG of at most 256 px")
                    continue
            else:
                mine_d, theirs = ffprobe_duration(output), ffprobe_duration(os.path.join(inbox, rel))
                if mine_d is None or (theirs is not None and rel not in truncated and abs(mine_d - theirs) > 0.02):
                    problems.append(f"{job}: {rel}: {output} lasts {mine_d} s, the input {theirs} s")
                    continue
            counts["outputs_verified"] += 1
        expected = {records[r].get("output") for r in records}
        for folder, _, files in os.walk(os.path.join(out, root)):
            if "/.medley" in folder + "/":
                continue
            for f in files:
                path = os.path.join(folder, f)
                if f.startswith(".") or "tmp" in f:
                    problems.append(f"{job}: a temporary file is left: {path}")
                elif path not in expected:
                    counts["stale_outputs"] += 1  # the output of a source renamed or deleted since
    return dict(problems=problems, counts=counts)


if __name__ == "__main__":
    main()
