// The seat counts a form offers follow its ruleset: each ruleset's <option> says the counts it is played
// with (data-seats="2 3 4", from goat.engine.rulesets.seat_range; goat-pairs: "4"). A count the chosen
// ruleset does not take is disabled, and a chosen one it does not take moves to the first it does; the
// computer players, when the form has them, are fewer than the seats (one seat is yours). The server
// refuses what the script does not offer all the same (400 invalid_options, invalid_request).

export function fitSeats(rulesetSelect, seatsSelect, computersSelect = null) {
  function fit() {
    const taken = (rulesetSelect.selectedOptions[0]?.dataset.seats || "").split(" ").filter(Boolean);
    for (const option of seatsSelect.options) {
      // "" (a challenge's "one for each of us") is the server's to check: it depends on who is named
      option.disabled = option.value !== "" && taken.length > 0 && !taken.includes(option.value);
    }
    if (seatsSelect.selectedOptions[0]?.disabled) {
      const first = [...seatsSelect.options].find((option) => !option.disabled && option.value !== "");
      if (first) seatsSelect.value = first.value;
    }
    if (!computersSelect) return;
    const seats = Number(seatsSelect.value);
    for (const option of computersSelect.options) option.disabled = Number(option.value) >= seats;
    if (computersSelect.selectedOptions[0]?.disabled) computersSelect.value = String(seats - 1);
  }
  rulesetSelect.addEventListener("change", fit);
  seatsSelect.addEventListener("change", fit);
  fit();
}
