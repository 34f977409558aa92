// The play page's script (an ES module; the page is whole without it but for the table).

import { startChallenges } from "./challenges.js";
import { startLobby } from "./lobby.js";
import { startTable } from "./table.js";

const table = document.getElementById("table");
startChallenges(startLobby(table ? Number(table.dataset.gameId) : null));
if (table) startTable(table);
