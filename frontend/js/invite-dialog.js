// The invite dialog: a private table's or tournament's link, to copy and pass on.

import { dialog, h, toast } from "./dom.js";
import { t } from "./i18n.js";

export async function inviteDialog(link, name, { text = t("invite.anyone") } = {}) {
  const input = h("input.invite-link", { type: "text", readonly: true, value: link, "aria-label": t("table.invite_link") });
  const copy = async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      document.execCommand?.("copy");
    }
    toast(t("invite.copied"));
    return undefined;
  };
  await dialog(
    t("invite.title", { name }),
    [h("p", text), input],
    [{ label: t("invite.copy"), action: copy }, { label: t("button.done"), value: true, primary: true }],
    { id: "invite-dialog" },
  );
}
