// HeldKeys: the drive keys a person holds now. A page can miss a keyup (the key was released
// over another element that swallowed it, over another window, while the OS had the
// keyboard), and a key it thinks is down would drive the robot for as long as the page is
// open: the resent commands keep the gateway's deadman from ever firing. So a key counts only
// while the browser keeps confirming it: its first keydown holds it for firstMs (longer than
// the usual delay before a held key repeats), each auto-repeat for repeatMs more. When the
// repeats stop, the key lets go by itself, keyup or not; and once let go, only a fresh press
// drives again.

/** Which keys drive, by KeyboardEvent.code. */
export const driveKeys = new Set(["KeyW", "KeyA", "KeyS", "KeyD", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]);

/**
 * The bound after a key's first keydown: operating systems wait 250 to 660 ms by default
 * (X11: 660 ms) before repeating a held key.
 */
export const firstHoldMs = 700;
/** The bound after an auto-repeat: repeats come every 33 to 400 ms at the usual settings. */
export const repeatHoldMs = 450;

export class HeldKeys {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly firstMs = firstHoldMs,
    private readonly repeatMs = repeatHoldMs,
  ) {}

  /**
   * A keydown of a drive key; repeat is KeyboardEvent.repeat. A repeat extends a key that is
   * held; it never starts one: a key that went down elsewhere, or that was let go by a stop
   * (clear, or its bound running out), drives again only after a fresh press.
   */
  down(code: string, repeat: boolean): void {
    if (!driveKeys.has(code)) return;
    if (repeat && !this.has(code)) return;
    this.until.set(code, this.now() + (repeat ? this.repeatMs : this.firstMs));
  }

  up(code: string): void {
    this.until.delete(code);
  }

  clear(): void {
    this.until.clear();
  }

  /** Whether code is held now (its last confirmation is recent enough). */
  has(code: string): boolean {
    const t = this.until.get(code);
    if (t === undefined) return false;
    if (t <= this.now()) {
      this.until.delete(code);
      return false;
    }
    return true;
  }

  /** The keys held now; keys whose confirmation ran out are dropped. */
  held(): Set<string> {
    const out = new Set<string>();
    for (const code of [...this.until.keys()]) if (this.has(code)) out.add(code);
    return out;
  }
}

/** Whether a key event's target takes typing (a key there is text, not driving). */
export function isEditable(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).closest !== "function") return false;
  const el = target as HTMLElement;
  if (el.isContentEditable) return true;
  const tag = el.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  const type = (el as HTMLInputElement).type;
  return !["button", "checkbox", "radio", "range", "reset", "submit", "image", "color", "file"].includes(type);
}
