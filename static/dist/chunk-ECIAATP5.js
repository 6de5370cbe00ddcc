var e="fleetgate:goal";export{e as a};
