import headless from "@xterm/headless";

/** What a person would see: the lines a real terminal emulator draws from the bytes, scrollback included. */
export interface RenderedScreen {
  lines: string[];
  /** Every window title the output set. */
  titles: string[];
}

export function renderScreen(raw: string, size: { cols: number; rows: number }): Promise<RenderedScreen> {
  const terminal = new headless.Terminal({ ...size, scrollback: 10_000, allowProposedApi: true });
  const titles: string[] = [];
  terminal.onTitleChange((title) => titles.push(title));
  return new Promise((resolve) => {
    terminal.write(raw, () => {
      const buffer = terminal.buffer.active;
      const lines: string[] = [];
      for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
      terminal.dispose();
      resolve({ lines, titles });
    });
  });
}
