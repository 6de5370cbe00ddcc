// The panel bundle's entry: page behaviours, then one widget per data-widget element.
// Widgets that pull in a large library (three.js, uPlot) load it only when the page has one.
import { startAlertSound, startClock, startConfirm, startCopy, startJSONCheck, startRefresh, startStateAgeing } from "./page/behaviours.js";
import { mountWidgets, startViewSwitch } from "./widgets/mount.js";

startRefresh();
startStateAgeing();
startCopy();
startJSONCheck();
startConfirm();
startViewSwitch();
startClock();
startAlertSound();
mountWidgets(document);
